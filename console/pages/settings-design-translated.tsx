// The Design page in one of the program's additional languages (issue #27): only the design's texts
// (settings-translations-spec.ts), grouped as on the base page, each the owner's text for that
// language over the base text; the live preview shows that language's readers' window (its words and
// default texts) with the unsaved texts in place.
import type { ComponentChildren } from 'preact';
import { api, can } from '../api.ts';
import { Async, announce } from '../ui.tsx';
import { languageName, t, type MessageKey } from '../i18n/index.ts';
import { Group, SaveError, errorWithin, fieldErrors, getIn } from './settings-kit.tsx';
import { hintOf, labelOf, paths, type Spec } from './settings-spec.tsx';
import { DESIGN_SECTIONS, WINDOW_TEXTS } from './settings-design-spec.ts';
import { isDesignText } from './settings-translations-spec.ts';
import { EmptyNote, TranslatedField, overlay, translationsPath, useOverrides, type LanguageTexts, type Overrides } from './settings-translations.tsx';
import { WidgetPreview } from '../widget-preview.tsx';
import type { CampaignDesign } from '../../shared/schemas/program-config-design.ts';
import type { DesignPreviewLinks } from '../../shared/schemas/program-previews.ts';

/** The maps of names among the design's texts (country codes in capitals, as the base page takes them). */
const MAPS = DESIGN_SECTIONS.flatMap((s) => [...s.fields, ...(s.more ?? [])])
  .flatMap((s) => (s.k === 'set' ? s.s : [s]))
  .flatMap((s) => (s.k === 'map' ? [{ p: s.p, up: s.up }] : []));

/** The specs among `specs` that are texts of this language's form and fields of this program's design. */
function textSpecs(specs: Spec[], base: CampaignDesign): Spec[] {
  return specs.flatMap((s): Spec[] => {
    if (s.k === 'set') {
      const inner = textSpecs(s.s, base);
      return inner.length ? [{ ...s, s: inner }] : [];
    }
    return isDesignText(s.p) && getIn(base, s.p) !== undefined ? [s] : [];
  });
}

function Fields({ specs, o, base }: { specs: Spec[]; o: Overrides; base: CampaignDesign }) {
  return (
    <>
      {specs.map((s) =>
        s.k === 'set' ? (
          <fieldset class="bare" key={s.l}>
            <legend class="sub">{t(s.l as MessageKey)}</legend>
            <Fields specs={s.s} o={o} base={base} />
          </fieldset>
        ) : (
          <TranslatedField
            key={s.p}
            o={o}
            path={s.p}
            base={getIn(base, s.p)}
            label={labelOf('ds', s)}
            hint={hintOf('ds', s) ?? (s.k === 'map' ? t('ds.map.hint') : undefined)}
            long={s.k === 'long' || s.k === 'map'}
          />
        ),
      )}
    </>
  );
}

/** The sign-up form's fields: each one's label and placeholder (named by the field's `key`, as the overrides are). */
function SignupTexts({ o, base }: { o: Overrides; base: CampaignDesign }) {
  return (
    <fieldset class="bare">
      <legend class="sub">{t('ds.sf.title')}</legend>
      {base.signup.fields.map((f, i) => (
        <div key={f.key} class="question">
          <TranslatedField o={o} path={`signup.fields.${f.key}.label`} base={f.label} label={t('ds.sf.label', { n: i + 1 })} />
          <TranslatedField o={o} path={`signup.fields.${f.key}.placeholder`} base={f.placeholder} label={t('ds.sf.placeholder', { n: i + 1 })} />
        </div>
      ))}
    </fieldset>
  );
}

/** A group of the base page with only its texts; its `more` texts fold away unless one was refused. */
function Section({ id, title, fields, more, moreTitle, o, base, always, children }: { id: string; title: string; fields: Spec[]; more: Spec[]; moreTitle?: string; o: Overrides; base: CampaignDesign; always?: boolean; children?: ComponentChildren }) {
  if (!fields.length && !more.length && !always) return null;
  const refused = paths(more).some((p) => fieldErrors(o.error, p).length > 0);
  return (
    <Group id={`g-tr-${id}`} title={title}>
      {children}
      <Fields specs={fields} o={o} base={base} />
      {more.length > 0 && (
        <details class="more" open={refused || undefined}>
          <summary>{t((moreTitle ?? 'settings.more') as MessageKey)}</summary>
          <Fields specs={more} o={o} base={base} />
        </details>
      )}
    </Group>
  );
}

/** The design's texts in `language` over the saved base design `base`; `saved` that language's design overrides. */
export function TranslatedDesignForm(props: { programId: string; language: string; base: CampaignDesign; saved: Record<string, unknown>; onSaved: () => void }) {
  // DP1 in this language: the preview's pages, and the design its readers see without the owner's texts
  // for it, whose texts are the placeholders (an unedited default shows in this language, as they read it).
  return (
    <Async depKey={`${props.programId}/${props.language}`} load={() => api<DesignPreviewLinks>('GET', `/campaign/${encodeURIComponent(props.programId)}/design/preview?language=${encodeURIComponent(props.language)}`)}>
      {(links) => <TranslatedForm {...props} links={links} shown={{ ...props.base, ...(links.design as Partial<CampaignDesign> | undefined) }} />}
    </Async>
  );
}

function TranslatedForm({ programId, language, shown: base, saved, onSaved, links }: { programId: string; language: string; shown: CampaignDesign; saved: Record<string, unknown>; onSaved: () => void; links: DesignPreviewLinks }) {
  const o = useOverrides(saved, MAPS);
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await o.save(async (body) => {
      try {
        return (await api<LanguageTexts>('PATCH', translationsPath(programId, language), { design: body })).design;
      } catch (err) {
        // The fields are paths inside `design`: name the API's problems the same way.
        throw errorWithin(err, 'design');
      }
    });
    announce(t(ok ? 'settings.saved' : 'settings.notSaved'));
    if (ok) onSaved();
  };
  const windowTexts = WINDOW_TEXTS.filter(([p]) => isDesignText(p));
  return (
    <div class="split">
      <form onSubmit={submit} class="settings-form" noValidate aria-label={t('tr.formTitle', { language: languageName(language) })}>
        <EmptyNote language={language} />
        <fieldset disabled={!can('program:write')} class="bare">
          <Group id="g-tr-texts" title={t('design.texts')}>
            {windowTexts.map(([p, key, long]) => (
              <TranslatedField key={p} o={o} path={p} base={getIn(base, p)} label={t(key)} long={long} />
            ))}
          </Group>
          {DESIGN_SECTIONS.map((s) => (
            <Section key={s.id} id={s.id} title={t(s.title as MessageKey)} fields={textSpecs(s.fields, base)} more={textSpecs(s.more ?? [], base)} moreTitle={s.moreTitle} o={o} base={base} always={s.id === 'signup'}>
              {s.hint && <p class="hint">{t(s.hint as MessageKey)}</p>}
              {s.id === 'signup' && <SignupTexts o={o} base={base} />}
            </Section>
          ))}
        </fieldset>
        <SaveError error={o.error} />
        {o.dirty && <p class="hint">{t('design.unsaved')}</p>}
        {can('program:write') && (
          <div class="buttons sticky-actions">
            <button type="submit" disabled={o.busy || !o.dirty}>
              {o.busy ? t('form.saving') : t('settings.save')}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={o.busy || !o.dirty}
              onClick={() => {
                o.reset();
                announce(t('design.reverted'));
              }}
            >
              {t('design.revert')}
            </button>
          </div>
        )}
      </form>
      <WidgetPreview programId={programId} language={language} links={links} design={(localized) => overlay(localized, o.current)} />
    </div>
  );
}
