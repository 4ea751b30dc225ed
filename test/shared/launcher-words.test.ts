import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../shared/program-language.ts';
import { enLauncher } from '../../shared/i18n/en-launcher.ts';
import { LAUNCHER_WORDS, launcherWords } from '../../shared/i18n/launcher.ts';

// Issue #27: the corner launcher's own words (a blank design text's fallback, the hide button's name)
// exist in every program language; the window payload sends them to readers of other languages.

describe('the launcher’s words in every program language (shared/i18n/launcher.ts)', () => {
  for (const lang of LANGUAGE_CODES.filter((c) => c !== 'en')) {
    it(`${lang}: every English key, none empty, none extra, not the English text`, () => {
      const own = launcherWords(lang);
      expect(own, `${lang} has launcher words`).toBeDefined();
      expect(Object.keys(own!).sort()).toEqual(Object.keys(enLauncher).sort());
      for (const [k, v] of Object.entries(own!)) {
        expect(v.trim(), `${lang} ${k}`).not.toBe('');
        expect(v, `${lang} ${k} is translated`).not.toBe(enLauncher[k as keyof typeof enLauncher]);
      }
    });
  }

  it('has none for English (the launcher’s drawing carries those) and none for a code that is not a program language', () => {
    expect(launcherWords('en')).toBeUndefined();
    expect(launcherWords('xx')).toBeUndefined();
    expect(launcherWords('constructor')).toBeUndefined();
    expect(Object.keys(LAUNCHER_WORDS).sort()).toEqual(LANGUAGE_CODES.filter((c) => c !== 'en').sort());
  });
});
