import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { campaignDesign } from '../../shared/schemas/program-config-design.ts';
import { campaignOptions } from '../../shared/schemas/program-config-options.ts';
import { campaignEmails } from '../../shared/schemas/program-config-emails.ts';
import { ANSWER_TYPES, PAYOUT_PROVIDERS } from '../../shared/schemas/affiliate.ts';
import * as fields from '../../shared/schemas/program-config-fields.ts';
import { BREAKDOWNS, DESIGN_SECTIONS, OWN_CONTROLS, SHARE_CHANNELS, SIGNUP_FIELD_TYPES } from '../../console/pages/settings-design-spec.ts';
import { TRAFFIC_BREAKDOWNS } from '../../shared/schemas/mobile-window.ts';
import * as options from '../../console/pages/settings-options-spec.ts';
import { EMAIL_SETTINGS_SECTIONS, TRANSACTIONAL_TEMPLATES } from '../../console/pages/settings-emails-spec.ts';
import { selectsOf, type Section, type Spec } from '../../console/pages/settings-spec-types.ts';
import { t, type MessageKey } from '../../console/i18n/index.ts';

// Issue #23: the console repeats the API's enumerations to avoid loading zod; these tests fail when
// a copy drifts from the schema it repeats, and when a field of the settings pages has no label.

type Def = { type: string; innerType?: z.ZodType; entries?: Record<string, string>; values?: unknown[]; element?: z.ZodType; shape?: Record<string, z.ZodType> };
const def = (s: z.ZodType) => (s as unknown as { def: Def }).def;

/** The schema at a dotted path, through optional, nullable and object wrappers. */
function at(schema: z.ZodType, path: string): z.ZodType {
  let s = schema;
  for (const key of path.split('.')) {
    while (['optional', 'nullable', 'default'].includes(def(s).type)) s = def(s).innerType!;
    const shape = def(s).shape;
    if (!shape?.[key]) throw new Error(`no ${key} in ${path}`);
    s = shape[key];
  }
  while (['optional', 'nullable', 'default'].includes(def(s).type)) s = def(s).innerType!;
  return s;
}

/** The values an enum or literal-union schema accepts, in order. */
function valuesOf(s: z.ZodType): unknown[] {
  const d = def(s);
  if (d.type === 'enum') return Object.values(d.entries!);
  if (d.type === 'literal') return d.values!;
  if (d.type === 'array') return valuesOf(d.element!);
  throw new Error(`not an enumeration: ${d.type}`);
}

const allSpecs = (sections: Section[]): Spec[] => sections.flatMap((s) => [...s.fields, ...(s.more ?? [])]);
const leaves = (specs: Spec[]): Array<Exclude<Spec, { k: 'set' }>> => specs.flatMap((s) => (s.k === 'set' ? leaves(s.s) : [s]));
const OPTION_SECTIONS = [options.APPLICATION_SECTION, options.TAX_SECTION, options.FRAUD_SECTION, options.RECAPTCHA_SECTION];

describe('console copies of the API’s enumerations', () => {
  it('repeats the shared lists exactly', () => {
    expect(options.COOKIE_WINDOW_DAYS).toEqual(fields.COOKIE_WINDOW_DAYS);
    expect(options.CREDIT_WINDOW_DAYS).toEqual(fields.CREDIT_WINDOW_DAYS);
    expect(options.PROGRAM_LANGUAGES).toEqual(fields.PROGRAM_LANGUAGES);
    expect(SHARE_CHANNELS).toEqual(fields.SHARE_CHANNELS);
    expect(BREAKDOWNS).toEqual(TRAFFIC_BREAKDOWNS);
    expect(SIGNUP_FIELD_TYPES).toEqual(valuesOf(def(def(at(campaignDesign, 'signup.fields')).element!).shape!.type!));
    expect(TRANSACTIONAL_TEMPLATES).toEqual(fields.TRANSACTIONAL_TEMPLATES);
    expect(options.PAYOUT_PROVIDERS).toEqual(PAYOUT_PROVIDERS);
    expect(options.ANSWER_TYPES).toEqual(ANSWER_TYPES);
    expect(options.CHOICE_TYPES.every((c) => (ANSWER_TYPES as readonly string[]).includes(c))).toBe(true);
  });

  it('offers in each options select the values the options schema accepts', () => {
    expect(options.APPLICATION_MODES).toEqual(valuesOf(at(campaignOptions, 'affiliateApplicationMode')));
    expect(options.STRICTNESS).toEqual(valuesOf(at(campaignOptions, 'fraud.strictness')));
    expect(valuesOf(at(campaignOptions, 'languages.baseLanguage'))).toEqual([...options.PROGRAM_LANGUAGES]);
    const selects = selectsOf(allSpecs(OPTION_SECTIONS));
    expect(selects.length).toBeGreaterThan(2);
    for (const { p, o } of selects) expect(o, p).toEqual(valuesOf(at(campaignOptions, p)));
  });

  it('offers in each design select the values the design schema accepts', () => {
    const selects = selectsOf(allSpecs(DESIGN_SECTIONS));
    expect(selects.length).toBeGreaterThan(15);
    for (const { p, o } of selects) expect(o, p).toEqual(valuesOf(at(campaignDesign, p)));
    expect(Object.keys(def(at(campaignDesign, 'share.channels')).shape!)).toEqual([...SHARE_CHANNELS]);
  });

  it('edits only fields the schemas have, each with a label (and its choices’ and hint’s texts)', () => {
    const check = (schema: z.ZodType, prefix: string, specs: Spec[]) => {
      for (const s of leaves(specs)) {
        expect(() => at(schema, s.p), s.p).not.toThrow();
        expect(t((s.l ?? `${prefix}.${s.p}`) as MessageKey), s.p).toBeTruthy();
        if (typeof s.h === 'string') expect(t(s.h as MessageKey)).toBeTruthy();
        else if (s.h) expect(t(`${prefix}.${s.p}.hint` as MessageKey), s.p).toBeTruthy();
        if (s.k === 'select') for (const v of [...s.o, ...(s.n ? ['none'] : [])]) expect(t(`${s.ol ?? `${prefix}.${s.p}`}.${v}` as MessageKey), `${s.p}=${v}`).toBeTruthy();
      }
      for (const s of specs.filter((x) => x.k === 'set')) {
        expect(t(s.l as MessageKey)).toBeTruthy();
        if (s.h) expect(t(s.h as MessageKey)).toBeTruthy();
      }
    };
    check(campaignDesign, 'ds', allSpecs(DESIGN_SECTIONS));
    check(campaignOptions, 'op', allSpecs(OPTION_SECTIONS));
    check(at(campaignEmails, 'settings'), 'es', allSpecs(EMAIL_SETTINGS_SECTIONS));
    for (const s of [...DESIGN_SECTIONS, ...OPTION_SECTIONS, ...EMAIL_SETTINGS_SECTIONS]) {
      expect(t(s.title as MessageKey)).toBeTruthy();
      for (const key of [s.hint, s.moreTitle]) if (key) expect(t(key as MessageKey)).toBeTruthy();
    }
  });

  it('lets the design page edit every field of the design document (issue #23)', () => {
    // Each leaf of the schema: a scalar, an array (sent whole) or a map of names.
    const schemaLeaves = (s: z.ZodType, path: string): string[] => {
      while (['optional', 'nullable', 'default'].includes(def(s).type)) s = def(s).innerType!;
      const shape = def(s).type === 'object' ? def(s).shape : undefined;
      return shape ? Object.entries(shape).flatMap(([k, v]) => schemaLeaves(v, path ? `${path}.${k}` : k)) : [path];
    };
    const all = schemaLeaves(campaignDesign, '');
    expect(all.length).toBeGreaterThan(250);
    const edited = new Set([...leaves(allSpecs(DESIGN_SECTIONS)).map((s) => s.p), ...OWN_CONTROLS]);
    expect(all.filter((p) => !edited.has(p))).toEqual([]);
    // No field twice (two controls for one field would fight over its value).
    const paths = [...leaves(allSpecs(DESIGN_SECTIONS)).map((s) => s.p), ...OWN_CONTROLS];
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
  });

  it('fails when a copy differs (the comparison itself can fail)', () => {
    expect(() => expect(['LENIENT', 'STANDARD']).toEqual(valuesOf(at(campaignOptions, 'fraud.strictness')))).toThrow();
  });
});
