// @vitest-environment happy-dom
// The corner launcher's rules (issue #24): who sees it and after a dismissal when (the page stage,
// launcher.ts, decides before the drawing is fetched), on which pages (design.widget.pageRules,
// checked by the drawing, launcher-ui.ts), and that the drawing's Hide button remembers.
import { afterEach, describe, expect, it } from 'vitest';
import { draw, pageAllowed } from '../../widget/attribution/launcher-ui.ts';
import { launcherShown, type LauncherConfig } from '../../widget/attribution/launcher.ts';
import type { WidgetRuntime } from '../../widget/runtime.ts';

const DAY = 864e5;

describe('who sees the launcher, and again when', () => {
  it('follows the audience: new visitors, participants, or both', () => {
    const now = Date.now();
    expect(launcherShown(undefined, { signedIn: false, now })).toBe(false);
    expect(launcherShown({ isShownToNewVisitors: true }, { signedIn: false, now })).toBe(true);
    expect(launcherShown({ isShownToNewVisitors: true }, { signedIn: true, now })).toBe(false);
    expect(launcherShown({ isShownToParticipants: true }, { signedIn: true, now })).toBe(true);
  });

  it('stays hidden after Hide: for returnAfterDays, or for good when it is 0', () => {
    const now = Date.now();
    const w = { isShownToNewVisitors: true, returnAfterDays: 7 };
    expect(launcherShown(w, { signedIn: false, hiddenAt: now - 6 * DAY, now })).toBe(false);
    expect(launcherShown(w, { signedIn: false, hiddenAt: now - 8 * DAY, now })).toBe(true);
    expect(launcherShown({ ...w, returnAfterDays: 0 }, { signedIn: false, hiddenAt: now - 400 * DAY, now })).toBe(false);
  });
});

describe('on which pages', () => {
  it('ALL shows everywhere; ONLY and EXCEPT match the path, host and path, or the full address, * as a wildcard, query and hash ignored', () => {
    expect(pageAllowed(undefined, 'https://shop.test/x')).toBe(true);
    expect(pageAllowed({ mode: 'ALL', patterns: ['/nowhere'] }, 'https://shop.test/x')).toBe(true);
    const only = { mode: 'ONLY' as const, patterns: ['/pricing', 'shop.test/blog/*'] };
    expect(pageAllowed(only, 'https://shop.test/pricing?plan=pro#top')).toBe(true);
    expect(pageAllowed(only, 'https://shop.test/blog/launch')).toBe(true);
    expect(pageAllowed(only, 'https://shop.test/about')).toBe(false);
    const except = { mode: 'EXCEPT' as const, patterns: ['https://shop.test/checkout*'] };
    expect(pageAllowed(except, 'https://shop.test/checkout/pay')).toBe(false);
    expect(pageAllowed(except, 'https://shop.test/')).toBe(true);
    // Pattern text is literal apart from *: a dot is a dot.
    expect(pageAllowed({ mode: 'ONLY', patterns: ['/a.b'] }, 'https://shop.test/axb')).toBe(false);
  });
});

describe('the drawing', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });
  const runtime = () => {
    const kept = new Map<string, unknown>();
    const rt = { store: { get: async (k: string) => kept.get(k), set: async (k: string, v: unknown) => void kept.set(k, v), del: async (k: string) => void kept.delete(k) } } as unknown as WidgetRuntime;
    return { rt, kept };
  };
  const opened: string[] = [];
  (window as any).growsurf = { open: async () => void opened.push('open'), initUnreadNotificationsBadge: async () => {} };

  it('draws nothing on a page its rules leave out, and an accessible button elsewhere; Hide removes it and remembers when', async () => {
    const { rt, kept } = runtime();
    const c: LauncherConfig = { at: Date.now(), w: { isShownToNewVisitors: true, pageRules: { mode: 'ONLY', patterns: ['/pricing'] }, newVisitorText: 'Get $10' } };
    (window as any).happyDOM.setURL('https://shop.test/about');
    draw(rt, c, false);
    expect(document.querySelector('[data-grsf-launcher]')).toBeNull();
    (window as any).happyDOM.setURL('https://shop.test/pricing');
    draw(rt, c, false);
    const host = document.querySelector('[data-grsf-launcher]')!;
    const buttons = [...host.shadowRoot!.querySelectorAll('button')];
    expect(buttons.map((b) => b.textContent?.trim())).toEqual(['Get $10', '×']);
    expect(buttons[1]!.getAttribute('aria-label')).toBe('Hide: Get $10');
    buttons[0]!.click();
    expect(opened).toEqual(['open']);
    buttons[1]!.click();
    expect(document.querySelector('[data-grsf-launcher]')).toBeNull();
    expect(kept.get('launcherHiddenAt')).toBeGreaterThan(Date.now() - 60_000);
  });
});
