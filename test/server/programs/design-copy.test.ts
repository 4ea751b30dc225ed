import { describe, expect, it } from 'vitest';
import { defaultDesign } from '../../../server/domain/programs/program-config-default-design.ts';
import { DESIGN_COPIES, enDesign, localizedDesign, defaultDesignIn, type DesignTextKey } from '../../../server/domain/programs/design-copy/index.ts';
import { LANGUAGE_CODES } from '../../../shared/program-language.ts';
import { programGoal } from '../../../shared/schemas/campaign.ts';

// Issue #27: the default design texts in every program language, and a stored design read in the
// reader's language: unedited default texts translated, the owner's texts as written.

const GOALS = [null, ...programGoal.options];
const TYPES = ['REFERRAL', 'AFFILIATE'] as const;
const tags = (s: string) => (s.match(/\{\{\s*[\w.]+\s*\}\}/g) ?? []).sort();

/** Every string leaf of a document with its path. */
function leaves(v: unknown, path = ''): Array<[string, string]> {
  if (typeof v === 'string') return [[path, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, `${path}[${i}]`));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, path ? `${path}.${k}` : k));
  return [];
}

/** Leaves that are values, not words (keys, enums, colours, sizes, addresses). */
const NOT_TEXT = /^(#[0-9a-f]{3,8}|\d+px|[A-Z0-9_]+|[a-z][A-Za-z]*|[^ ]+@example\.com(, [^ ]+@example\.com)*|)$/;

describe('default design texts in every program language (issue #27)', () => {
  it('has every language, each with exactly the English keys, non-empty, the same merge tags', () => {
    expect(Object.keys(DESIGN_COPIES).sort()).toEqual([...LANGUAGE_CODES].sort());
    const keys = Object.keys(enDesign).sort();
    for (const [code, copy] of Object.entries(DESIGN_COPIES)) {
      expect(Object.keys(copy).sort(), code).toEqual(keys);
      for (const k of keys as DesignTextKey[]) {
        expect(copy[k].trim(), `${code}.${k}`).not.toBe('');
        expect(tags(copy[k]), `${code}.${k}`).toEqual(tags(enDesign[k]));
        if (code !== 'en' && !['name', 'leads', 'paypalEmail', 'email', 'sources', 'revenue'].includes(k) && enDesign[k].length > 12) {
          expect(copy[k], `${code}.${k} is still English`).not.toBe(enDesign[k]);
        }
      }
    }
  });

  it('covers every English text leaf of the default design, both types, every goal', () => {
    const english = new Set<string>(Object.values(enDesign));
    for (const type of TYPES) {
      for (const goal of GOALS) {
        const texts = leaves(defaultDesign(type, goal)).filter(([, v]) => !NOT_TEXT.test(v));
        expect(texts.length).toBeGreaterThan(80);
        for (const [path, v] of texts) expect(english.has(v), `${type}/${goal} ${path}: "${v}"`).toBe(true);
      }
    }
  });

  it('a new program’s design, read in German, has a German text at every text place and keeps every other value', () => {
    for (const type of TYPES) {
      const stored = defaultDesign(type, 'CUSTOMERS');
      const de = localizedDesign(type, 'CUSTOMERS', stored, 'de');
      const a = leaves(stored);
      const b = leaves(de);
      expect(b.map(([p]) => p)).toEqual(a.map(([p]) => p));
      for (let i = 0; i < a.length; i++) {
        const [path, en] = a[i]!;
        const v = b[i]![1];
        if (NOT_TEXT.test(en)) expect(v, path).toBe(en);
        else expect(Object.values(DESIGN_COPIES.de!), path).toContain(v);
      }
      expect(de).toEqual(defaultDesignIn(type, 'CUSTOMERS', 'de'));
    }
    const de = localizedDesign('REFERRAL', null, defaultDesign('REFERRAL', null), 'de');
    expect(de.signup.fields.map((f) => f.label)).toEqual(['E-Mail', 'Vorname']);
    expect(de.signup.buttonText).toBe('Meinen Empfehlungslink holen');
    expect(de.participantSettings.logoutText).toBe('Abmelden');
    expect(de.share.message).toBe('Das könnte dir gefallen. Schau mal rein: {{shareUrl}}');
  });

  it('keeps the owner’s texts as written, and recognises a default saved back in another language', () => {
    const stored = defaultDesign('REFERRAL', null);
    stored.header.preText = 'Tell your friends about Acme.';
    stored.signup.buttonText = 'Get my referral link '; // one space more: the owner's
    stored.participantSettings.logoutText = DESIGN_COPIES.ja!.signOut; // a Japanese default a console saved back
    // The owner put first name first: labels pair by the field's key, not its place.
    stored.signup.fields = [stored.signup.fields[1]!, stored.signup.fields[0]!, { key: 'company', type: 'TEXT', label: 'Company', placeholder: 'Email', isRequired: false }];
    const fr = localizedDesign('REFERRAL', null, stored, 'fr');
    expect(fr.header.preText).toBe('Tell your friends about Acme.');
    expect(fr.signup.buttonText).toBe('Get my referral link ');
    expect(fr.participantSettings.logoutText).toBe('Se déconnecter');
    expect(fr.signup.fields.map((f) => [f.label, f.placeholder])).toEqual([
      ['Prénom', 'Camille'],
      ['E-mail', 'you@example.com'],
      ['Company', 'Email'],
    ]);
    const en = localizedDesign('REFERRAL', null, stored, 'en');
    expect(en.participantSettings.logoutText).toBe('Sign out');
    expect(en.header.preText).toBe('Tell your friends about Acme.');
  });

  it('an English reader of an English design gets it unchanged; a frozen design is localized once per language', () => {
    const stored = Object.freeze(defaultDesign('AFFILIATE', 'CUSTOMERS'));
    expect(localizedDesign('AFFILIATE', 'CUSTOMERS', stored, 'en')).toEqual(stored);
    const ja = localizedDesign('AFFILIATE', 'CUSTOMERS', stored, 'ja');
    expect(ja.commissions!.statusLabels.PAID).toBe('支払済み');
    expect(localizedDesign('AFFILIATE', 'CUSTOMERS', stored, 'ja')).toBe(ja);
    expect(stored.commissions!.statusLabels.PAID).toBe('Paid');
  });
});
