// Program settings, Design (CF1/CF2): the theme, the window's headings and every other section of the
// design document (settings-design-spec.ts), with the real widget beside the form showing every
// change before it is saved. A program with additional languages chooses which language's texts
// are edited (settings-design-translated.tsx).
import { useMemo } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, PageTitle } from '../ui.tsx';
import { t } from '../i18n/index.ts';
import { ColorField, Group, SaveError, SelectField, TextField, getIn } from './settings-kit.tsx';
import { SpecSection, useDraft } from './settings-spec.tsx';
import { SPEC_MAX_LENGTH } from './settings-limits.ts';
import { DESIGN_SECTIONS, THEME_COLOURS, WINDOW_TEXTS } from './settings-design-spec.ts';
import { SignupFields } from './settings-design-extra.tsx';
import { WidgetPreview } from '../widget-preview.tsx';
import { LanguageChoice, chosenLanguage, loadTranslations } from './settings-translations.tsx';
import { TranslatedDesignForm } from './settings-design-translated.tsx';
import type { CampaignDesign } from '../../shared/schemas/program-config-design.ts';
import { draftBrandColors } from '../../shared/brand.ts';

/** The design form's fields over a draft; `set` records a change. Also used by the guided setup. */
export function DesignFields({ draft, set, error, compact }: { draft: CampaignDesign; set: (path: string, v: unknown) => void; error: unknown; compact?: boolean }) {
  const colors = compact ? THEME_COLOURS.slice(0, 3) : THEME_COLOURS;
  return (
    <>
      <Group id="g-colours" title={t('design.colours')}>
        <div class="color-grid">
          {colors.map(([path, key]) => (
            <ColorField key={path} id={`d-${path}`} field={path} error={error} label={t(key)} value={String(getIn(draft, path) ?? '')} onInput={(v) => set(path, v)} />
          ))}
        </div>
        {!compact && (
          <>
            <SelectField
              id="d-theme.fontFamily"
              field="theme.fontFamily"
              error={error}
              label={t('design.font')}
              value={draft.theme.fontFamily}
              options={(['INHERIT', 'SYSTEM', 'SERIF', 'MONOSPACE'] as const).map((f) => [f, t(`design.font.${f}`)] as const)}
              onChange={(v) => set('theme.fontFamily', v)}
            />
            <TextField id="d-theme.borderRadius" field="theme.borderRadius" error={error} label={t('design.radius')} hint={t('design.radiusHint')} size={8} maxLength={SPEC_MAX_LENGTH['ds:theme.borderRadius']} value={draft.theme.borderRadius} onInput={(v) => set('theme.borderRadius', v)} />
          </>
        )}
      </Group>
      <Group id="g-texts" title={t('design.texts')}>
        {WINDOW_TEXTS.map(([path, key, long]) => (
          <TextField key={path} id={`d-${path}`} field={path} error={error} label={t(key)} multiline={long} maxLength={SPEC_MAX_LENGTH[`ds:${path}`]} value={String(getIn(draft, path) ?? '')} onInput={(v) => set(path, v)} />
        ))}
      </Group>
    </>
  );
}

function DesignForm({ programId, saved, onSaved }: { programId: string; saved: CampaignDesign; onSaved: () => void }) {
  const { draft: edited, busy, save, reset, dirty } = useDraft(saved);
  // The colours that follow the brand (issue #32) follow the unsaved main colour too, in the fields and the preview.
  const doc = useMemo(() => draftBrandColors(edited.saved, edited.doc), [edited.saved, edited.doc]);
  const draft = { ...edited, doc };
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await save((changes) => api<CampaignDesign>('PATCH', `/campaign/${encodeURIComponent(programId)}/design`, changes));
    announce(t(ok ? 'settings.saved' : 'settings.notSaved'));
    if (ok) onSaved();
  };
  return (
    <div class="split">
      <form onSubmit={submit} class="settings-form" noValidate>
        <SaveError error={draft.error} />
        <fieldset disabled={!can('program:write')} class="bare">
          <DesignFields draft={draft.doc} set={draft.set} error={draft.error} />
          {DESIGN_SECTIONS.map((section) => (
            <SpecSection key={section.id} section={section} d={draft} prefix="ds">
              {section.id === 'signup' && <SignupFields d={draft} />}
            </SpecSection>
          ))}
        </fieldset>
        {dirty && <p class="hint">{t('design.unsaved')}</p>}
        {can('program:write') && (
          <div class="buttons sticky-actions">
            <button type="submit" disabled={busy || !dirty}>
              {busy ? t('form.saving') : t('settings.save')}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={busy || !dirty}
              onClick={() => {
                reset();
                announce(t('design.reverted'));
              }}
            >
              {t('design.revert')}
            </button>
          </div>
        )}
      </form>
      <WidgetPreview programId={programId} design={draft.doc} />
    </div>
  );
}

export default function DesignPage({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <>
      <PageTitle>{t('settings.designTitle')}</PageTitle>
      {/* The texts per language come with it: a save reloads both (kept on screen meanwhile), so switching language shows what was saved. */}
      <Async depKey={id} load={() => Promise.all([api<CampaignDesign>('GET', `/campaign/${encodeURIComponent(id)}/design`), loadTranslations(id)])}>
        {([d, tr], reload) => {
          const language = chosenLanguage(tr);
          return (
            <>
              <LanguageChoice tr={tr} chosen={language} />
              {language ? (
                <TranslatedDesignForm key={language} programId={id} language={language} base={d} saved={tr.languages[language]!.design} onSaved={reload} />
              ) : (
                <DesignForm programId={id} saved={d} onSaved={reload} />
              )}
            </>
          );
        }}
      </Async>
    </>
  );
}
