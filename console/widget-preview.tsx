// The live preview of the program's real widget: a frame of the server's signed preview page (DP1),
// to which the unsaved design is posted on every change (the page only accepts our own origin). In
// one of the program's additional languages (issue #27) the pages are that language's (the widget's
// words, default texts and saved texts in it), and the unsaved texts are laid over the design its
// readers see without the owner's texts for it (DP1's `design`).
import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { usePreviewFrame } from './preview-frame.ts';
import { Async } from './ui.tsx';
import { t } from './i18n/index.ts';
import type { DesignPreviewLinks } from '../shared/schemas/program-previews.ts';

type View = 'referrer' | 'referredFriend';

function Frame({ links, design, view }: { links: DesignPreviewLinks; design: unknown; view: View }) {
  const frame = usePreviewFrame({ type: 'refloop.preview.design', design }, 150);
  // A same-origin path, so the console's `frame-src 'self'` allows it whatever PUBLIC_URL says.
  const url = new URL(view === 'referrer' ? links.referrerUrl : links.referredFriendUrl);
  return (
    <iframe
      ref={frame}
      key={view}
      class="widget-frame"
      src={url.pathname}
      title={t('preview.frameTitle', { view: t(view === 'referrer' ? 'preview.referrer' : 'preview.friend') })}
    />
  );
}

/**
 * The real widget with a choice of view, showing `design` (a complete CampaignDesign) in the base
 * language; with `language`, that language's pages (`links`, DP1 asked for that language, which the
 * caller also reads for its placeholders) showing what `design` makes of the design its readers see
 * without the owner's texts for it (DP1's `design`), such as the texts on screen laid over it.
 */
export function WidgetPreview(props: { programId: string; design: unknown; language?: undefined } | { programId: string; language: string; links: DesignPreviewLinks; design: (localized: Record<string, unknown>) => unknown }) {
  const { programId, language } = props;
  const [view, setView] = useState<View>('referrer');
  return (
    <section class="card preview" aria-labelledby="preview-title">
      <h2 id="preview-title">{t('preview.title')}</h2>
      <p class="hint">{t('preview.hint')}</p>
      <fieldset class="bare inline-choices">
        <legend class="sub">{t('preview.view')}</legend>
        {(['referrer', 'referredFriend'] as const).map((v) => (
          <label class="choice" key={v}>
            <input type="radio" name="preview-view" checked={view === v} onChange={() => setView(v)} />
            <span>{t(v === 'referrer' ? 'preview.referrer' : 'preview.friend')}</span>
          </label>
        ))}
      </fieldset>
      {props.language === undefined ? (
        <Async depKey={programId} load={() => api<DesignPreviewLinks>('GET', `/campaign/${encodeURIComponent(programId)}/design/preview`)}>
          {(links) => <Frame links={links} design={props.design} view={view} />}
        </Async>
      ) : (
        <Frame key={language} links={props.links} design={props.design(props.links.design ?? {})} view={view} />
      )}
    </section>
  );
}
