// The hosted pages' entry (dist/widget/portal.js, issue #24): the program's landing page and the
// participant portal at /p/{programId}[/portal] (server/http/pages/landing.ts). It is the attribution
// script and the window in one module for a page of ours: it keeps the same per-program store,
// records the landing's visit with the capture stage, boots the real window (same participant API,
// same sign-up, the same sign-in link redeem) and draws its panels full-page instead of in a dialog.
import { extend } from '../i18n/index.ts';
import { enPortal } from '../i18n/en-portal.ts';
import type { PendingAttribution, StoredReceipts, WidgetRuntime } from '../runtime.ts';
import { INSTANCE_ID, PENDING, RECEIPTS, VISITS } from '../attribution/common.ts';
import { openStore } from '../attribution/store.ts';
import { capture } from '../attribution/capture.ts';
import { start } from '../window/sdk.tsx';
import { closeWindow } from '../window/dialog.tsx';
import { mount, themeOverride } from '../window/ui.tsx';
import { PORTAL_CSS, Portal, type Mode } from './portal.tsx';

extend('en', enPortal);

/** Builds the runtime the attribution script would (widget/runtime.ts), records the landing, boots the window and draws the portal. */
async function main(): Promise<void> {
  const d = document;
  const host = d.querySelector<HTMLElement>('[data-grsf-portal]');
  const tag = d.querySelector<HTMLScriptElement>('script[grsf-campaign]');
  const programId = tag?.getAttribute('grsf-campaign');
  if (!host || !tag || !programId) return;
  const mode: Mode = host.dataset.grsfPortal === 'portal' ? 'portal' : 'landing';
  const origin = new URL(tag.src).origin;
  const store = openStore(programId + '/');
  let noted!: () => void;
  const stored = new Promise<void>((r) => (noted = r));
  let instanceId = await store.get<string>(INSTANCE_ID);
  // As the attribution script does: a blob URL ends in a random UUID, and unlike crypto.randomUUID it exists on http pages too.
  if (!instanceId) await store.set(INSTANCE_ID, (instanceId = URL.createObjectURL(new Blob()).slice(-36).toLowerCase()));
  const rt: WidgetRuntime = {
    programId,
    apiBase: origin + '/mobile/v2',
    assetBase: origin + '/widget/',
    instanceId,
    queue: [],
    store,
    pendingAttribution: () => stored.then(() => store.get<PendingAttribution>(PENDING)),
    receipts: async () => (await store.get<StoredReceipts>(RECEIPTS)) || {},
    clearPendingAttribution: async () => void (await Promise.all([PENDING, VISITS, RECEIPTS].map(store.del))),
    emit: (name, detail) => d.dispatchEvent(new CustomEvent(name, { bubbles: true, detail })),
  };
  (window as { grsfInit?: unknown }).grsfInit = 1;
  // The landing's attribution (a share link's grsf) is recorded as on any site; a sign-in token is no attribution.
  const href = new URL(location.href);
  href.searchParams.delete('grsfLogin');
  void capture(rt, href.href, d.referrer, noted).finally(noted);
  // The landing page's accent (a colour the server checked) over the design's window theme; set with setProperty like every theme value.
  const accent = host.dataset.grsfAccent ? { primaryColor: host.dataset.grsfAccent, buttonTextColor: host.dataset.grsfAccentText } : {};
  themeOverride.value = accent;
  const root = mount(host, <Portal mode={mode} programId={programId} />);
  if (!root.querySelector('style[data-portal]')) {
    const style = d.createElement('style');
    style.setAttribute('data-portal', '');
    style.textContent = PORTAL_CSS;
    root.append(style);
  }
  const signingIn = /[?&]grsfLogin=/.test(location.search);
  await start(rt);
  // Back from a sign-in link the window opens itself as a dialog; this page shows the portal in place instead.
  // (Same task as the opening: no frame is painted in between.)
  if (signingIn) {
    closeWindow();
    themeOverride.value = accent;
  }
}

void main();
