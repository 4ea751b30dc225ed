import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { campaignDesign } from '../../shared/schemas/program-config-design.ts';
import { campaignOptions } from '../../shared/schemas/program-config-options.ts';
import { campaignEmails } from '../../shared/schemas/program-config-emails.ts';
import { DESIGN_SECTIONS, WINDOW_TEXTS } from '../../console/pages/settings-design-spec.ts';
import * as options from '../../console/pages/settings-options-spec.ts';
import { EMAIL_SETTINGS_SECTIONS } from '../../console/pages/settings-emails-spec.ts';
import { SPEC_MAX_LENGTH } from '../../console/pages/settings-limits.ts';
import type { Section, Spec } from '../../console/pages/settings-spec-types.ts';

// Issue #32 (defect 7): every spec-driven text control carries its schema's maximum as maxlength.
// The console keeps a copy of the maxima (zod stays out of its bundle); this derives the table from
// the schemas and fails when the copy drifts.

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> };
const def = (s: z.ZodType) => (s as unknown as { def: Def }).def;
const unwrap = (s: z.ZodType) => {
  while (['optional', 'nullable', 'default'].includes(def(s).type)) s = def(s).innerType!;
  return s;
};
function at(schema: z.ZodType, path: string): z.ZodType {
  let s = schema;
  for (const key of path.split('.')) {
    const shape = def(unwrap(s)).shape;
    if (!shape?.[key]) throw new Error(`no ${key} in ${path}`);
    s = shape[key];
  }
  return unwrap(s);
}
const leaves = (specs: Spec[]): Array<Exclude<Spec, { k: 'set' }>> => specs.flatMap((s) => (s.k === 'set' ? leaves(s.s) : [s]));
const all = (sections: Section[]) => leaves(sections.flatMap((s) => [...s.fields, ...(s.more ?? [])]));

function derived(): Record<string, number> {
  const own: Spec[] = [...WINDOW_TEXTS.map(([p]) => ({ k: 'text', p }) as Spec), { k: 'text', p: 'theme.borderRadius' }];
  const pages: Array<[string, z.ZodType, Array<Exclude<Spec, { k: 'set' }>>]> = [
    ['ds', campaignDesign, [...all(DESIGN_SECTIONS), ...leaves(own)]],
    ['op', campaignOptions, all([options.APPLICATION_SECTION, options.TAX_SECTION, options.FRAUD_SECTION, options.RECAPTCHA_SECTION])],
    ['es', at(campaignEmails, 'settings'), all(EMAIL_SETTINGS_SECTIONS)],
  ];
  const out: Record<string, number> = {};
  for (const [prefix, schema, specs] of pages)
    for (const s of specs) {
      if (!['text', 'long', 'url', 'email'].includes(s.k)) continue;
      const max = (at(schema, s.p) as unknown as { maxLength?: number | null }).maxLength;
      if (typeof max === 'number') out[`${prefix}:${s.p}`] = max;
    }
  return out;
}

describe('settings text maxima (issue #32)', () => {
  it('repeats, for every spec-driven text field with a schema maximum, that maximum', () => {
    const want = derived();
    expect(Object.keys(want).length).toBeGreaterThan(150);
    expect(want['ds:header.preText']).toBe(500);
    expect(SPEC_MAX_LENGTH, `paste into console/pages/settings-limits.ts:\n${JSON.stringify(want, null, 2)}`).toEqual(want);
  });
});
