// The navigation between the window's and the portal's sections (issue #32): the first section is
// the home, the others never wrap onto a second row at any width. One component for the dialog and
// the full-page portal, so both behave alike by mouse and by keyboard.
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/index.ts';
import type { Panel } from './panels/registry.tsx';
import { uid } from './ui.tsx';

/**
 * The sections and the one shown, by `design.window.navigationMode`. TABS: a tablist in one row that
 * scrolls sideways where it does not fit (arrow keys, Home and End move between tabs; the chosen tab
 * is scrolled into view); with `side`, a vertical list beside the section on wide screens (the
 * portal). LIST: the home with the other sections listed under it; a chosen one replaces both with a
 * Back button, which takes focus, and Back gives focus to that section's entry again.
 */
export function Sections({ panels, label, list, side }: { panels: Panel[]; label: string; list?: boolean; side?: boolean }) {
  const [tab, setTab] = useState<string | null>(null);
  const [id] = useState(() => uid('p'));
  const box = useRef<HTMLDivElement>(null);
  const left = useRef<string | null>(null);
  const q = (sel: string) => box.current?.querySelector<HTMLElement>(sel);
  const active = panels.find((p) => p.id === tab) ?? (list ? undefined : panels[0]);
  useEffect(() => {
    if (list) (tab ? q(`#${id}-b`) : left.current ? q(`[data-s="${left.current}"]`) : null)?.focus();
  }, [tab]);
  if (panels.length < 2) {
    const Only = panels[0]?.C;
    return Only ? <Only inWindow /> : null;
  }
  if (list) {
    if (active)
      return (
        <div ref={box}>
          <button
            id={`${id}-b`}
            type="button"
            class="s"
            onClick={() => {
              left.current = active.id;
              setTab(null);
            }}
          >
            {t('window.back')}
          </button>
          <active.C inWindow />
        </div>
      );
    const Home = panels[0]!.C;
    return (
      <div ref={box}>
        <Home inWindow />
        <nav class="nav" aria-label={label}>
          <ul>
            {panels.slice(1).map((p) => (
              <li key={p.id}>
                <button type="button" class="s" data-s={p.id} onClick={() => setTab(p.id)}>
                  {p.title()}
                </button>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    );
  }
  const shown = active!;
  const pick = (p: Panel, focus?: boolean) => {
    setTab(p.id);
    requestAnimationFrame(() => {
      const b = q(`#${id}-${p.id}`);
      b?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
      if (focus) b?.focus();
    });
  };
  const onKey = (e: KeyboardEvent) => {
    const i = panels.indexOf(shown);
    const k = e.key;
    const next = k === 'ArrowRight' || k === 'ArrowDown' ? i + 1 : k === 'ArrowLeft' || k === 'ArrowUp' ? i - 1 : k === 'Home' ? 0 : k === 'End' ? panels.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    pick(panels[(next + panels.length) % panels.length]!, true);
  };
  const vertical = side && matchMedia('(min-width:900px)').matches;
  return (
    <div ref={box} class={side ? 'side' : undefined}>
      <div role="tablist" aria-label={label} aria-orientation={vertical ? 'vertical' : 'horizontal'} onKeyDown={onKey}>
        {panels.map((p) => (
          <button type="button" role="tab" key={p.id} id={`${id}-${p.id}`} aria-selected={p === shown} aria-controls={`${id}-t`} tabIndex={p === shown ? 0 : -1} onClick={() => pick(p)}>
            {p.title()}
          </button>
        ))}
      </div>
      <div id={`${id}-t`} role="tabpanel" aria-labelledby={`${id}-${shown.id}`}>
        <shown.C inWindow />
      </div>
    </div>
  );
}
