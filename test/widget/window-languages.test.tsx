// @vitest-environment happy-dom
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { mobileProgram } from '../helpers/mobile.ts';
import { LANGUAGE_CODES } from '../../shared/program-language.ts';
import { en } from '../../widget/i18n/en.ts';
import { enSignup } from '../../widget/i18n/en-signup.ts';
import { enShare } from '../../widget/i18n/en-share.ts';
import { enPanels } from '../../widget/i18n/en-panels.ts';
import { enPortal } from '../../widget/i18n/en-portal.ts';
import { catalogue, t, type Plural } from '../../widget/i18n/index.ts';
import { choose, nativeName } from '../../widget/i18n/load.tsx';
import { boot } from '../../widget/window/index.tsx';
import { windowSuite, asServer, makeRuntime, textOf, tokenFor, until } from './window-runtime.ts';

// Issue #27: the window's catalogue in every program language, each language two lazy chunks
// (widget/i18n/<code>.ts and <code>-panels.ts) loaded only when the window is in that language.

type Message = string | Plural;
const DIR = path.resolve(import.meta.dirname, '../../widget/i18n');
const OTHERS = LANGUAGE_CODES.filter((c) => c !== 'en');
/** What each language file must hold: exactly these English keys. */
const PARTS = {
  '': { ...en, ...enSignup, ...enShare } as Record<string, Message>,
  '-panels': { ...enPanels, ...enPortal } as Record<string, Message>,
};
/** Channel names that are brands: a language file gives one only where the brand has its own name there. */
const BRAND_KEYS = new Set(['facebook', 'twitter', 'linkedin', 'pinterest', 'threads', 'bluesky', 'messenger', 'whatsapp', 'wechat', 'telegram', 'reddit', 'tumblr'].map((c) => `channel.${c}`));
const texts = (m: Message): string[] => (typeof m === 'string' ? [m] : Object.values(m));
const placeholders = (m: Message) => [...new Set(texts(m).flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((x) => x[1]!)))].sort();
const categories = (lang: string) => new Intl.PluralRules(lang).resolvedOptions().pluralCategories;

describe('every program language has every window message (completeness)', () => {
  for (const lang of OTHERS) {
    for (const [suffix, english] of Object.entries(PARTS)) {
      const file = `${lang}${suffix}.ts`;
      it(`${file}: every English key, none empty, none extra, the same placeholders, the language's plural forms`, async () => {
        expect(fs.existsSync(path.join(DIR, file)), `widget/i18n/${file} exists`).toBe(true);
        const own = (await import(`../../widget/i18n/${lang}${suffix}.ts`)).messages as Record<string, Message>;
        // A brand's name is the brand's own (English) unless the language has one (微信, 领英): it may be left out.
        expect(Object.keys(english).filter((k) => !(k in own) && !BRAND_KEYS.has(k)), 'missing keys').toEqual([]);
        expect(Object.keys(own).filter((k) => !(k in english)), 'keys English does not have').toEqual([]);
        expect(Object.keys(own).filter((k) => texts(own[k]!).some((s) => !s.trim())), 'empty').toEqual([]);
        expect(Object.keys(english).filter((k) => k in own && JSON.stringify(placeholders(english[k]!)) !== JSON.stringify(placeholders(own[k]!))), 'placeholders differ from English').toEqual([]);
        // A count's message is a plural in every language, with every category the language uses (and no other).
        const plural = Object.keys(english).filter((k) => typeof english[k] !== 'string');
        expect(plural.filter((k) => typeof own[k] === 'string'), 'plural messages given as one text').toEqual([]);
        const need = categories(lang);
        const bad = plural.filter((k) => typeof own[k] === 'object' && JSON.stringify(Object.keys(own[k]!).sort()) !== JSON.stringify([...need].sort()));
        expect(bad, `plural categories other than ${need.join(', ')}`).toEqual([]);
      });
    }
  }

  it('carries no language file the program languages do not know', () => {
    const files = fs.readdirSync(DIR).filter((f) => /\.ts$/.test(f) && !/^(en[.-]|index\.|panels\.)/.test(f) && f !== 'en.ts');
    const codes = new Set(files.map((f) => f.replace(/(-panels)?\.ts$/, '')));
    expect([...codes].filter((c) => !OTHERS.includes(c as never))).toEqual([]);
  });
});

describe('which language the window is in (shared/program-language.ts through i18n/load.tsx)', () => {
  const program = { languages: ['de', 'en', 'ja'] };
  it('is the participant’s language, else the base language for a participant without one', () => {
    expect(choose({ ...program, participant: { language: 'ja' } }, ['en-US'])).toBe('ja');
    expect(choose({ ...program, participant: { language: null } }, ['en-US'])).toBe('de');
    expect(choose({ ...program, participant: { language: 'fr' } }, ['fr'])).toBe('de');
  });
  it('is the browser’s best match among the program’s languages for a visitor, else the base, else English', () => {
    expect(choose({ ...program, participant: null }, ['fr-FR', 'ja-JP', 'en'])).toBe('ja');
    expect(choose({ ...program, participant: null }, ['fr-FR'])).toBe('de');
    expect(choose({ participant: null }, ['fr-FR'])).toBe('en');
  });
  it('is the language a server preview page names (grsfPreview.language) when the program offers it, whatever the browser prefers', () => {
    const w = window as { grsfPreview?: unknown };
    try {
      w.grsfPreview = { view: 'referredFriend', language: 'ja', responses: {} };
      expect(choose({ ...program, participant: null }, ['en-US'])).toBe('ja');
      expect(choose({ ...program, participant: { language: 'en' } }, ['en-US'])).toBe('ja');
      w.grsfPreview = { view: 'referredFriend', language: 'fr', responses: {} };
      expect(choose({ ...program, participant: null }, ['en-US'])).toBe('en');
    } finally {
      delete w.grsfPreview;
    }
  });
  it('names each language in itself', () => {
    expect(nativeName('de')).toBe('Deutsch');
    expect(nativeName('es')).toBe('Español');
    expect(nativeName('ja')).toBe('日本語');
  });
});

let app: TestApp;
windowSuite((a) => (app = a), { closeWindow: true });
const gs = () => (window as any).growsurf;
const host = () => document.querySelector<HTMLElement>('[data-grsf-window]');
const dialog = () => host()?.shadowRoot?.querySelector<HTMLElement>('[role="dialog"]') ?? null;

describe('the window loads only the language in use', () => {
  it('an English-only program loads no other language', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const ann = await tokenFor(app, p, 'ann@example.com');
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    gs().open();
    const d = await until(dialog);
    await until(() => textOf(d).includes('Your referral link'));
    expect(Object.keys(catalogue)).toEqual(['en']);
    // No language setting: one language only.
    expect(d.querySelector('select')).toBeNull();
  });

  it('a German participant of a [de, en] program reads German, and switching to English in settings saves it and re-renders', async () => {
    const p = await asServer(app, () => mobileProgram(app, { options: { languages: { baseLanguage: 'de', additionalLanguages: ['en'] } } }));
    const ann = await tokenFor(app, p, 'ann@example.com');
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    gs().open();
    const d = await until(dialog);
    // The catalogue's words are German (the design's texts are the owner's and stay as written).
    await until(() => textOf(d).includes('Sprache'));
    expect(textOf(d)).toContain('Freunde einladen');
    expect(textOf(d)).toContain('Teile deinen Link');
    expect(d.querySelector('button[aria-label="Schließen"]')).not.toBeNull();
    expect(d.querySelector('[role="tablist"]')?.getAttribute('aria-label')).toBe('Bereiche');
    // Only German was loaded: both its chunks, no other language.
    expect(Object.keys(catalogue).sort()).toEqual(['de', 'en']);
    expect(catalogue.de!['leaderboard.title']).toBe('Bestenliste');
    expect(t('invite.sent', { count: 2 })).toBe('2 Einladungen gesendet.');
    const select = await until(() => d.querySelector('select'));
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ['de', 'Deutsch'],
      ['en', 'English'],
    ]);
    expect(select.value).toBe('de');
    expect(textOf(select.closest('label'))).toContain('Sprache');
    select.value = 'en';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await until(() => textOf(d).includes('Refer friends'));
    expect(textOf(d)).toContain('Language');
    // The design's default texts, which MW1 localizes, switch too, without a reload (the window payload is read again).
    await until(() => textOf(d).includes('Share your link'));
    expect(textOf(d)).not.toContain('Teile deinen Link');
    expect(select.isConnected ? select.value : d.querySelector('select')!.value).toBe('en');
    const rest = await asServer(app, () => app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.participant.id}`, { key: p.key }));
    expect(rest.body.language).toBe('en');
    // A language the program does not run in is refused by the participant API, and nothing changes.
    await expect(gs().updateParticipant({ language: 'fr' })).rejects.toThrow();
    const again = await asServer(app, () => app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.participant.id}`, { key: p.key }));
    expect(again.body.language).toBe('en');
  });
});
