import { describe, expect, it } from 'vitest';
import { translatablePaths } from '../../shared/program-translations.ts';
import { DESIGN_MAP_PATHS, DESIGN_TEXT_PATHS, EMAIL_SETTINGS_TEXTS, SIGNUP_FIELD_TEXTS, TEMPLATE_TEXTS, overlay, overrideChanges, putAt } from '../../console/pages/settings-translations-spec.ts';
import { EMAIL_TEMPLATE_KEYS } from '../../shared/schemas/program-config-fields.ts';

// Issue #27: the console shows, in an additional language, exactly the texts the server accepts per
// language (shared/program-translations.ts derives them from the zod schemas, which the console does
// not load). These fail when either list changes without the other.

/** What the console offers, in the server's notation (`*` for a map's key or a sign-up field's key). */
const consolePaths = new Set([...DESIGN_TEXT_PATHS, ...DESIGN_MAP_PATHS.map((p) => `${p}.*`), ...SIGNUP_FIELD_TEXTS.map((k) => `signup.fields.*.${k}`)]);

describe('texts per language in the console', () => {
  it('offers every translatable design text of either program type, and nothing else', () => {
    const server = new Set([...translatablePaths('design', 'REFERRAL'), ...translatablePaths('design', 'AFFILIATE')]);
    expect([...server].filter((p) => !consolePaths.has(p))).toEqual([]);
    expect([...consolePaths].filter((p) => !server.has(p))).toEqual([]);
  });

  it('offers each template’s subject, preview text and body, and the shared footer', () => {
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      const server = translatablePaths('emails', type);
      const templates = EMAIL_TEMPLATE_KEYS.filter((k) => server.includes(`${k}.subject`));
      expect(templates.length).toBeGreaterThan(5);
      expect(server.sort()).toEqual([...templates.flatMap((k) => TEMPLATE_TEXTS.map((x) => `${k}.${x}`)), ...EMAIL_SETTINGS_TEXTS].sort());
    }
  });

  it('lays a language’s texts over the design as the preview shows it: sign-up fields by key, maps gaining keys, other values kept', () => {
    const design = {
      header: { preText: 'Hi', postText: 'Welcome' },
      theme: { primaryColor: '#111111' },
      signup: { fields: [{ key: 'email', label: 'Email', placeholder: '' }, { key: 'firstName', label: 'First name', placeholder: 'Ann' }] },
      countryLabels: { DE: 'Germany' },
      referredExperience: { offerPopupTitle: null },
    };
    const out = overlay(design, {
      header: { postText: 'Bienvenido' },
      signup: { fields: { firstName: { label: 'Nombre' }, gone: { label: 'x' } } },
      countryLabels: { DE: 'Alemania', FR: 'Francia' },
      referredExperience: { offerPopupTitle: '¡Hola!' },
    });
    expect(out).toEqual({
      header: { preText: 'Hi', postText: 'Bienvenido' },
      theme: { primaryColor: '#111111' },
      signup: { fields: [{ key: 'email', label: 'Email', placeholder: '' }, { key: 'firstName', label: 'Nombre', placeholder: 'Ann' }] },
      countryLabels: { DE: 'Alemania', FR: 'Francia' },
      referredExperience: { offerPopupTitle: '¡Hola!' },
    });
    expect(design.header.postText).toBe('Welcome');
  });

  it('sends only what changed: a new or edited text, an emptied one as null, names of a map one by one', () => {
    const saved = { header: { preText: 'Hola', postText: 'Bienvenido' }, countryLabels: { DE: 'Alemania', FR: 'Francia' }, trafficInsights: { breakdowns: { referrer: { values: { 'google.com': 'Google' } } } } };
    const maps = [{ p: 'countryLabels', up: true }, { p: 'trafficInsights.breakdowns.referrer.values' }];
    // Typed back to what is saved, or left empty where nothing was: no change.
    expect(overrideChanges(saved, { 'header.preText': 'Hola', 'share.title': '', countryLabels: 'DE = Alemania\nFR = Francia' }, maps)).toEqual([]);
    const changes = overrideChanges(
      saved,
      { 'header.preText': '', 'header.postText': '¡Bienvenido!', 'share.title': 'Comparte', countryLabels: 'de = Alemania\nes = España', 'trafficInsights.breakdowns.referrer.values': 'google.com = Buscador' },
      maps,
    );
    expect(changes).toEqual([
      [['header', 'preText'], null],
      [['header', 'postText'], '¡Bienvenido!'],
      [['share', 'title'], 'Comparte'],
      [['countryLabels', 'ES'], 'España'],
      [['countryLabels', 'FR'], null],
      [['trafficInsights', 'breakdowns', 'referrer', 'values', 'google.com'], 'Buscador'],
    ]);
    // As the PATCH body: a key with a dot stays one key.
    expect(changes.reduce<Record<string, unknown>>((o, [keys, v]) => putAt(o, keys, v), {})).toEqual({
      header: { preText: null, postText: '¡Bienvenido!' },
      share: { title: 'Comparte' },
      countryLabels: { ES: 'España', FR: null },
      trafficInsights: { breakdowns: { referrer: { values: { 'google.com': 'Buscador' } } } },
    });
  });
});
