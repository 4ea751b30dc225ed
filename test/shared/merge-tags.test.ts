import { describe, expect, it } from 'vitest';
import { designText, fillTags } from '../../shared/merge-tags.ts';

// The one set of merge-tag rules the emails, the widget and the hosted share page share.

describe('fillTags', () => {
  const vars: Record<string, string> = { firstName: 'Ann', reward: 'a free bag of beans.', empty: '' };
  const value = (name: string) => vars[name] ?? '';

  it('fills a tag, and an unknown or empty one with its fallback or nothing', () => {
    expect(fillTags('Hi {{firstName}}!', value)).toBe('Hi Ann!');
    expect(fillTags('Hi {{nobody|there}}!', value)).toBe('Hi there!');
    expect(fillTags('Hi {{empty}}, welcome', value)).toBe('Hi, welcome');
  });

  it('lets a value that ends its own sentence swallow the full stop after the tag', () => {
    expect(fillTags('You earned {{reward}}.', value)).toBe('You earned a free bag of beans.');
  });

  it('encodes only the fallback through the given encoder', () => {
    expect(fillTags('{{nobody|<b>}} {{firstName}}', value, (s) => s.replace('<', '&lt;'))).toBe('&lt;b> Ann');
  });
});

describe('designText', () => {
  it('strips markup, reads entities and ignores tags named after Object.prototype members', () => {
    expect(designText('<p>Give &amp; get, {{firstName}}.</p><script>alert(1)</script>{{constructor}}', { firstName: 'Ann' })).toBe('Give & get, Ann.');
  });
});
