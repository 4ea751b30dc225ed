import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { format, languages, translator, type Messages } from '../../shared/i18n/index.ts';

// Issue #23: every user-visible string of the console and the server's pages comes from one message
// catalogue (shared/i18n machinery). Each catalogue is checked against the code that uses it: a key
// the code asks for exists, every entry is asked for somewhere, no key is defined twice, and every
// plural entry has the `one` and `other` forms English needs.

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const walk = (rel: string): string[] =>
  fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(path.join(rel, d.name)) : /\.tsx?$/.test(d.name) ? [path.join(rel, d.name)] : []));

interface Catalogue {
  /** The files whose exported objects make up the catalogue. */
  files: string[];
  /** The code that asks for its messages. */
  sources: string[];
  /** Whether only `t('key')` calls count as asking (the code also quotes other dotted names: field paths). */
  callsOnly?: boolean;
  /** Areas whose keys the code builds from tables (not checked here for use; see the note where set). */
  tableAreas?: string[];
}

const PAGES = 'server/http/pages';
const participantPages = ['affiliate-invite.ts', 'payout-confirm.ts', 'tax.ts', 'unsubscribe.ts', 'share-link.ts', 'landing.ts'].map((f) => `${PAGES}/${f}`).filter((f) => fs.existsSync(path.join(ROOT, f)));
const ownerPages = fs
  .readdirSync(path.join(ROOT, PAGES))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `${PAGES}/${f}`)
  .filter((f) => !participantPages.includes(f));

const CATALOGUES: Record<string, Catalogue> = {
  console: {
    files: ['shared/i18n/en-owner.ts', ...fs.readdirSync(path.join(ROOT, 'console/i18n')).filter((f) => /^en(-[a-z-]+)?\.ts$/.test(f)).map((f) => `console/i18n/${f}`)],
    sources: walk('console').filter((f) => !f.startsWith('console/i18n/')),
    callsOnly: true,
    // The settings pages build `ds.<path>` and `op.<path>` from their spec tables (settings-*-spec.ts);
    // test/console/settings-enums.test.ts walks those tables for the keys they need.
    tableAreas: ['ds.', 'op.'],
  },
  'owner pages': {
    files: ['shared/i18n/en-owner.ts', ...['en-page', 'en-account', 'en-team', 'en-site', 'en-oauth', 'en-two-factor'].map((f) => `${PAGES}/i18n/${f}.ts`)],
    sources: ownerPages,
  },
  'participant pages': {
    files: [`${PAGES}/i18n/en-page.ts`, `${PAGES}/i18n/en-participant.ts`, `${PAGES}/i18n/en-landing.ts`],
    sources: participantPages,
  },
};

/** Each file's messages (the one object it exports as `en…`). */
async function messagesOf(file: string): Promise<Messages> {
  const mod = (await import(path.join(ROOT, file))) as Record<string, unknown>;
  const objects = Object.entries(mod).filter(([name, v]) => /^en[A-Z]?/.test(name) && typeof v === 'object' && v !== null);
  expect(objects.map(([name]) => name), `${file} exports one catalogue object`).toHaveLength(1);
  return objects[0]![1] as Messages;
}

/** The code without its comments (whole-line `//` comments and blocks), so a key named in prose is not a use. */
const code = (file: string) => read(file).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/**
 * What the code asks for: quoted strings that look like keys (with `callsOnly`, only first arguments
 * of `t(…)`), keys built in template literals (`role.${x}` becomes a pattern), and families: a quoted
 * name that keys extend (`prefix="astatus"`, `ol: 'options.mask'`) stands for all of them.
 */
function usage(sources: string[], callsOnly = false): { literals: Map<string, string>; patterns: RegExp[] } {
  const literals = new Map<string, string>();
  const patterns: RegExp[] = [];
  for (const file of sources) {
    const text = code(file);
    for (const m of text.matchAll(/(['"])([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_:-]+)*)\1/g)) patterns.push(new RegExp(`^${m[2]!.replace(/\./g, '\\.')}\\.[A-Za-z0-9_]+$`));
    if (callsOnly) {
      for (const m of text.matchAll(/\bt\(\s*(['"])([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_:-]+)+)\1/g)) literals.set(m[2]!, file);
      for (const m of text.matchAll(/(['"])([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_:-]+)+)\1/g)) if (!literals.has(m[2]!)) patterns.push(new RegExp(`^${m[2]!.replace(/\./g, '\\.')}$`));
    }
    if (!callsOnly) for (const m of text.matchAll(/(['"])([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_:-]+)+)\1/g)) literals.set(m[2]!, file);
    for (const m of text.matchAll(/`([A-Za-z][A-Za-z0-9]*\.(?:[A-Za-z0-9_.:-]|\$\{[^}`]*\})*)`/g)) {
      if (!m[1]!.includes('${')) {
        if (!callsOnly) literals.set(m[1]!, file);
        else patterns.push(new RegExp(`^${m[1]!.replace(/\./g, '\\.')}$`));
        continue;
      }
      const source = m[1]!.split(/\$\{[^}`]*\}/).map((part) => part.replace(/[.]/g, '\\.')).join('.+');
      patterns.push(new RegExp(`^${source}$`));
    }
  }
  return { literals, patterns };
}

describe('the message catalogues (issue #23)', () => {
  for (const [name, c] of Object.entries(CATALOGUES)) {
    describe(name, () => {
      it('defines every key once, in one file', async () => {
        const seen = new Map<string, string>();
        const twice: string[] = [];
        for (const file of c.files) {
          for (const key of Object.keys(await messagesOf(file))) {
            if (seen.has(key)) twice.push(`${key}: ${seen.get(key)} and ${file}`);
            seen.set(key, file);
          }
        }
        expect(twice).toEqual([]);
      });

      it('has every key the code asks for', async () => {
        const all: Record<string, unknown> = {};
        for (const file of c.files) Object.assign(all, await messagesOf(file));
        // A quoted string is a key when it starts like one of this catalogue's areas (`keys.`, `signin.`).
        const areas = new Set(Object.keys(all).map((k) => k.slice(0, k.indexOf('.') + 1)));
        const { literals } = usage(c.sources, c.callsOnly);
        const missing = [...literals].filter(([s]) => areas.has(s.slice(0, s.indexOf('.') + 1)) && !(s in all)).map(([s, file]) => `${file}: ${s}`);
        expect(literals.size).toBeGreaterThan(20);
        expect(missing).toEqual([]);
      });

      it('has no entry that no code asks for', async () => {
        const unused: string[] = [];
        for (const file of c.files) {
          // A part several catalogues share counts as used when the code of any of them asks for it.
          const readers = Object.values(CATALOGUES).filter((other) => other.files.includes(file));
          const uses = usage([...new Set(readers.flatMap((r) => r.sources))], readers.some((r) => r.callsOnly));
          const skipped = (key: string) => readers.some((r) => r.tableAreas?.some((a) => key.startsWith(a)));
          for (const key of Object.keys(await messagesOf(file))) if (!skipped(key) && !uses.literals.has(key) && !uses.patterns.some((p) => p.test(key))) unused.push(`${file}: ${key}`);
        }
        expect(unused).toEqual([]);
      });

      it('gives every plural entry its `one` and `other` forms, each with {count}', async () => {
        const bad: string[] = [];
        for (const file of c.files) {
          for (const [key, m] of Object.entries(await messagesOf(file))) {
            if (typeof m === 'string') continue;
            if (typeof m.one !== 'string' || typeof m.other !== 'string' || !m.other.includes('{count}')) bad.push(`${file}: ${key}`);
          }
        }
        expect(bad).toEqual([]);
      });
    });
  }

  it('shares what the console and the owner pages both say: each shared key is asked for by both', async () => {
    const shared = Object.keys(await messagesOf('shared/i18n/en-owner.ts'));
    const byConsole = usage(CATALOGUES.console!.sources, true);
    const byPages = usage(CATALOGUES['owner pages']!.sources);
    const used = (u: ReturnType<typeof usage>, k: string) => u.literals.has(k) || u.patterns.some((p) => p.test(k));
    expect(shared.filter((k) => !used(byConsole, k) || !used(byPages, k))).toEqual([]);
  });
});

describe('shared/i18n, the catalogue machinery (issue #23)', () => {
  const en = { 'a.hello': 'Hello {name}', 'a.count': { one: '{count} key of {team}', other: '{count} keys of {team}' }, 'a.curly': 'Keep {unknown} as written' } as const;

  it('fills placeholders as text, once, and picks the plural form by count with numbers formatted', () => {
    const t = translator(en);
    expect(t('a.hello', { name: '{name} <b>' })).toBe('Hello {name} <b>');
    expect(t('a.count', { count: 1, team: 'Acme' })).toBe('1 key of Acme');
    expect(t('a.count', { count: 1234, team: 'Acme' })).toBe('1,234 keys of Acme');
    expect(t('a.curly')).toBe('Keep {unknown} as written');
    expect(format({ one: 'one', few: 'few', many: 'many', other: 'other' }, { count: 5 }, 'pl')).toBe('many');
  });

  it('keeps a catalogue per language: a partial language falls back to English key by key, with English plural rules', () => {
    const pages = languages(en, { de: { 'a.hello': 'Hallo {name}' } });
    expect(pages.codes).toEqual(['en', 'de']);
    expect(pages.in('de-AT')('a.hello', { name: 'Ana' })).toBe('Hallo Ana');
    expect(pages.in('de')('a.count', { count: 2, team: 'X' })).toBe('2 keys of X');
    expect(pages.in('xx')('a.hello', { name: 'Ana' })).toBe('Hello Ana');
    expect(pages.in(null)('a.hello', { name: 'Ana' })).toBe('Hello Ana');
  });
});
