// The window in a language other than English (issue #27): a lazy chunk the first load asks for
// only when the program offers anything but English. It picks the language by the one shared rule
// (shared/program-language.ts: the participant's `language`, else for a visitor the browser's best
// match among the program's languages, else the base language), loads that language's two chunks
// together, `<code>.ts` (first load, sign-up and share words) and `<code>-panels.ts` (the
// lazy panels and the hosted pages), and gives the window its language setting (`ctx.L`, drawn under
// the panels for a participant when the program has several languages).
// Both chunks at once, not the panel words with the panels' chunks: a top-level await in the
// panels' shared module splits window.js into several static chunks (1.3 KB gzip more for
// everyone), and a second round trip per panel costs more than 3 KB once.
import { useState } from 'preact/hooks';
import { chooseLanguage } from '../../shared/program-language.ts';
import { extend, locale, setLanguage, t, type Messages } from './index.ts';
import './panels.ts';
import { ctx, loads, state } from '../window/state.ts';
import type { Participant } from '../window/api.ts';
import type { LAUNCHER_KEYS } from '../attribution/common.ts';

/**
 * The store key of the launcher's copy of the design: a constant of its own, since importing the
 * attribution script's key table moves it into the hosted pages' first load (37 B gzip); the type
 * makes a drift a compile error.
 */
const LAUNCHER_CONFIG: (typeof LAUNCHER_KEYS)['config'] = 'launcher';

type Chunk = () => Promise<{ messages: Messages }>;
// Every language file beside English: one chunk each, fetched only for the language in use.
const chunks = import.meta.glob<{ messages: Messages }>(['./*.ts', '!./en*.ts', '!./index.ts', '!./panels.ts']) as Record<string, Chunk>;

/** What the choice reads from the window payload. */
export interface LanguageSource {
  participant: { language?: string | null } | null;
  languages?: string[];
}

/**
 * The language code `win` is shown in (the program's languages, base first). A server preview page
 * (the console's design preview, C6's screenshots) names the language it was built for
 * (`grsfPreview.language`), which wins over the browser's: its window payload is that language's.
 */
export function choose(win: LanguageSource, browser: readonly string[] = navigator.languages ?? [navigator.language]): string {
  const offered = win.languages?.length ? win.languages : ['en'];
  const preview = (window as { grsfPreview?: { language?: string } }).grsfPreview?.language;
  if (preview && offered.includes(preview)) return preview;
  return chooseLanguage({ participant: win.participant ? (win.participant.language ?? null) : undefined, base: offered[0], offered, acceptLanguage: browser.join(',') });
}

/** Loads `code`'s chunks (English has none) into the catalogue and switches `t` to it; a chunk that fails to load throws (the language stays). */
export async function load(code: string): Promise<string> {
  const parts = [chunks[`./${code}.ts`], chunks[`./${code}-panels.ts`]].filter((c) => !!c);
  for (const m of await Promise.all(parts.map((c) => c()))) extend(code, m.messages);
  return setLanguage(code);
}

/** The window payload's language, loaded (refresh awaits it); on a network failure the window stays English. */
export const use = (win: LanguageSource) => load(choose(win)).catch(() => 'en');

/** A language's name in that language, capitalised as a menu item (`español` → `Español`). */
export function nativeName(code: string): string {
  let n = code;
  try {
    n = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;
  } catch {
    /* an engine without DisplayNames: the code */
  }
  return n.charAt(0).toLocaleUpperCase(code) + n.slice(1);
}

/**
 * The language setting: the program's languages by their own names; a change is saved to the
 * participant (PATCH /mobile/v2/participant `language`, validated against the program's languages)
 * and the whole window re-renders in it at once: the catalogue's words from the language's chunks,
 * and the design's default texts, which the server localizes, from the window payload read again.
 * The launcher's stored copy of the design is dropped, so the next page draws it in the new
 * language too.
 */
export function Language() {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const s = state.value;
  const codes = s.status === 'ready' ? (s.win.languages ?? []) : [];
  if (s.status !== 'ready' || !s.win.participant || codes.length < 2) return null;
  const change = async (code: string) => {
    setBusy(true);
    setFailed(false);
    try {
      await ctx.api.updateParticipant({ language: code as Participant['language'] & string });
      const win = await ctx.api.window();
      await load(code);
      const now = state.value;
      if (now.status === 'ready') state.value = { ...now, win };
      loads.value++;
      void ctx.rt.store.del(LAUNCHER_CONFIG);
    } catch {
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <p>
      <label>
        {t('settings.language')}{' '}
        <select value={locale()} disabled={busy} onChange={(e) => void change(e.currentTarget.value)}>
          {codes.map((c) => (
            <option key={c} value={c} lang={c}>
              {nativeName(c)}
            </option>
          ))}
        </select>
      </label>
      {failed && <span role="alert"> {t('state.error')}</span>}
    </p>
  );
}

ctx.L = Language;
