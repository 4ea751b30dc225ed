// @vitest-environment happy-dom
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram } from '../helpers/mobile.ts';
import { SHARE_CHANNELS } from '../../shared/schemas/program-config-fields.ts';
import { TAX_STATUSES } from '../../shared/schemas/affiliate.ts';
import { PAYOUT_REQUIRED_ACTIONS } from '../../shared/schemas/participant.ts';
import { en as enCore } from '../../widget/i18n/en.ts';
import { enPanels } from '../../widget/i18n/en-panels.ts';
import { enSignup } from '../../widget/i18n/en-signup.ts';
import { enShare } from '../../widget/i18n/en-share.ts';
import { catalogue, setLanguage, t, type Plural } from '../../widget/i18n/index.ts';
import { boot } from '../../widget/window/index.tsx';
import { windowSuite, asServer, makeRuntime, textOf, tokenFor, until } from './window-runtime.ts';

// Issue #7: every user-visible string comes from the one message catalogue.

/** The whole English catalogue: the first load's part, the first panels' parts and the lazy panels' part. */
const en: Record<string, string | Plural> = { ...enCore, ...enSignup, ...enShare, ...enPanels };
const ROOT = path.resolve(import.meta.dirname, '../../widget/window');
const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(path.join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [path.join(dir, d.name)] : []));

/** Catalogue keys the code builds from an enum value; each family's values are listed from the contract. */
const FAMILIES: Record<string, readonly string[]> = {
  'rewards.': ['PENDING', 'FULFILLED', 'CANCELLED'],
  'referrals.': ['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED', 'INVITE_SENT'],
  'commissions.': ['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED', 'empty'],
  'payouts.': ['UPCOMING', 'QUEUED', 'ISSUED', 'FAILED', 'REVERSED', 'empty'],
  'channel.': SHARE_CHANNELS,
  'payoutSettings.': PAYOUT_REQUIRED_ACTIONS,
  'signup.': ['email', 'firstName', 'lastName'],
  'tax.': TAX_STATUSES,
  'leaderboard.': ['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH'],
};

describe('the message catalogue', () => {
  it('has every literal key the window code asks for', () => {
    const missing: string[] = [];
    let found = 0;
    for (const file of sources(ROOT)) {
      const code = fs.readFileSync(file, 'utf8');
      // t('key'), and copy(designText, 'key') / label(field, 'key'): the catalogue fallbacks of design texts.
      for (const m of code.matchAll(/\b(?:t\(\s*|(?:copy|label)\([^'\n]*?,\s*)'([^']+)'/g)) {
        found++;
        if (!(m[1]! in en)) missing.push(`${path.basename(file)}: ${m[1]}`);
      }
      for (const m of code.matchAll(/'([a-zA-Z]+\.[a-zA-Z_]+)'/g)) if (/^(state|window|share|signup|invite|rewards|referrals|summary|affiliate|commissions|payouts|payoutSettings|tax|resources|traffic|application|leaderboard)\./.test(m[1]!) && !(m[1]! in en)) missing.push(`${path.basename(file)}: ${m[1]}`);
    }
    expect(found).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it('never hands HTML to the DOM: no innerHTML, outerHTML, insertAdjacentHTML or dangerouslySetInnerHTML in the widget', () => {
    const offenders = sources(ROOT)
      .concat(sources(path.resolve(ROOT, '../i18n')))
      .filter((f) => /dangerouslySetInnerHTML|\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write/.test(fs.readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('has every key built from an enum value (statuses, channels, required actions)', () => {
    const missing = Object.entries(FAMILIES).flatMap(([prefix, values]) => values.map((v) => prefix + v).filter((k) => !(k in en)));
    expect(missing).toEqual([]);
  });

  it('is keyed by language and falls back to English key by key', async () => {
    expect(Object.keys(catalogue)).toContain('en');
    catalogue.fr = { 'window.close': 'Fermer' };
    try {
      // load.ts picks one of the program's codes (shared/program-language.ts); setLanguage takes it as is.
      expect(setLanguage('fr')).toBe('fr');
      expect(t('window.close')).toBe('Fermer');
      expect(t('window.title')).toBe(en['window.title']);
    expect(Object.keys(enCore).filter((k) => k in enPanels || k in enSignup || k in enShare)).toEqual([]);
    expect(Object.keys(enSignup).filter((k) => k in enPanels || k in enShare)).toEqual([]);
    expect(Object.keys(enShare).filter((k) => k in enPanels)).toEqual([]);
      setLanguage('xx'); // a language without messages reads English key by key
      expect(t('window.close')).toBe('Close');
    } finally {
      delete catalogue.fr;
      setLanguage('en');
    }
    // The lazy panels' part arrives with their chunks.
    if (!('invite.sent' in catalogue.en!)) expect(t('invite.sent', { count: 3 })).toBe('invite.sent');
    await import('../../widget/i18n/panels.ts');
    expect(t('invite.sent', { count: 3 })).toBe('3 invites sent.');
  });
});

describe('plurals (issue #21)', () => {
  it('picks the form for the count through Intl.PluralRules: "1 unread notification", "2 unread notifications"', async () => {
    await import('../../widget/i18n/panels.ts');
    expect(t('badge.label', { count: 1 })).toBe('1 unread notification');
    expect(t('badge.label', { count: 2 })).toBe('2 unread notifications');
    expect(t('badge.label', { count: 0 })).toBe('0 unread notifications');
    expect(t('invite.sent', { count: 1 })).toBe('1 invite sent.');
    expect(t('invite.sent', { count: 5 })).toBe('5 invites sent.');
    expect(t('traffic.chart', { count: 1, days: 1 })).toBe('Visits over the last day');
    expect(t('traffic.chart', { count: 30, days: 30 })).toBe('Visits over the last 30 days');
  });

  it('every message with a {count} is a plural with an "other" form, and each form says the count or means one', () => {
    const counted = Object.entries(en).filter(([, v]) => JSON.stringify(v).includes('{count}'));
    expect(counted.length).toBeGreaterThanOrEqual(3);
    for (const [key, v] of counted) {
      expect(typeof v, key).toBe('object');
      expect((v as Plural).other, key).toContain('{count}');
    }
  });

  it("uses the message's own language's categories (zero, one, two, few, many, other), falling back to English", () => {
    catalogue.ar = { 'badge.label': { zero: 'z{count}', one: 'o{count}', two: 't{count}', few: 'f{count}', many: 'm{count}', other: 'x{count}' } };
    catalogue.pl = { 'badge.label': { one: 'one', few: '{count} few', many: '{count} many', other: '{count} other' } };
    try {
      setLanguage('ar');
      expect([0, 1, 2, 3, 11, 100].map((count) => t('badge.label', { count }))).toEqual(['z0', 'o1', 't2', 'f3', 'm11', 'x100']);
      setLanguage('pl');
      expect([1, 2, 5, 22].map((count) => t('badge.label', { count }))).toEqual(['one', '2 few', '5 many', '22 few']);
      // Polish without its own text falls back to English, with English's categories.
      expect(t('invite.sent', { count: 1 })).toBe('1 invite sent.');
    } finally {
      delete catalogue.ar;
      delete catalogue.pl;
      setLanguage('en');
    }
  });
});

describe('rendered panels', () => {
  let app: TestApp;
  windowSuite((a) => (app = a));

  const KEY_SHAPE = new RegExp(`\\b(${[...new Set(Object.keys(en).map((k) => k.split('.')[0]))].join('|')})\\.[A-Za-z_]+\\b`);

  it('show no text that is a catalogue key (a key missing from English would render as itself)', async () => {
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      const p = await asServer(app, () => mobileProgram(app, { type }));
      const { participant, participantToken } = await tokenFor(app, p, `owner-${type}@example.com`);
      if (type === 'REFERRAL') await asServer(app, () => addParticipant(app, p, { email: 'f@example.com', referredBy: participant.id, referralStatus: 'CREDIT_PENDING' }));
      const names = ['form', 'invite', 'rewards', 'referral-status', 'referral-summary', 'affiliate-summary', 'commissions', 'payouts', 'payout-settings', 'tax', 'traffic', 'leaderboard', 'resources', 'application'];
      const els = names.map((n) => {
        const el = document.createElement('div');
        el.setAttribute(`data-grsf-block-${n}`, '');
        document.body.append(el);
        return el;
      });
      await boot(await makeRuntime(app, p.pid, { participantToken }));
      (window as any).growsurf.open();
      await until(() => els.every((el) => el.shadowRoot && textOf(el.shadowRoot).trim() && !textOf(el.shadowRoot).includes('Loading')));
      const all = textOf(document.body);
      expect(all).not.toMatch(KEY_SHAPE);
      expect(all).toContain(type === 'REFERRAL' ? 'Your referrals' : 'Commissions');
      (window as any).growsurf.close();
      document.body.innerHTML = '';
    }
  });
});
