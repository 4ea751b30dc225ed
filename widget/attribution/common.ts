// Small pieces both stages of the attribution script use (each stage is built into its own file).
import type { WidgetRuntime } from '../runtime.ts';

import type { STORE_KEYS } from '../runtime.ts';

type Keys = typeof STORE_KEYS;
/**
 * The store keys this script uses, as separate constants: the contract's STORE_KEYS object would be
 * bundled whole. The types make a drift from widget/runtime.ts a compile error.
 */
export const INSTANCE_ID: Keys['instanceId'] = 'instanceId';
export const PENDING: Keys['pending'] = 'pendingAttribution';
export const VISITS: Keys['visits'] = 'visitQueue';
export const RECEIPTS: Keys['receipts'] = 'receipts';
export const PARTICIPANT_TOKEN: Keys['participantToken'] = 'participantToken';

/**
 * A cheap test that a URL may carry attribution: every key parse.ts reads contains one of these
 * (percent-encoded keys are caught by `%`). False positives only cost loading the capture stage.
 */
export const MAY_CARRY_ATTRIBUTION = /grsf|ref|utm|click|share|%/i;

/** Store keys of the launcher and the welcome (under the program's namespace, like every key). */
export const LAUNCHER_KEYS = { config: 'launcher', hiddenAt: 'launcherHiddenAt', welcomed: 'welcomed' } as const;

/** The second stage's module interface: `import(assetBase + 'chunks/capture-<hash>.js')` then `capture(runtime, href, referrer)`. */
export interface CaptureModule {
  capture(rt: WidgetRuntime, href: string, referrer: string, stored?: () => void): Promise<void>;
}

/**
 * Every decision not to send a visit is reported here, in development builds only: call sites are
 * written `if (import.meta.env.DEV) notSending(…)` so production builds drop the text too.
 */
export function notSending(why: string): void {
  console.info('[refloop] not sending:', why);
}

/** A time-ordered UUID (version 7, lower case) from getRandomValues, which unlike randomUUID also works on http pages. */
export function uuid(): string {
  let h = Date.now().toString(16).padStart(12, '0');
  for (const x of crypto.getRandomValues(new Uint8Array(9))) h += (x | 256).toString(16).slice(1);
  // 48 bits of time, version 7, 12 random bits, variant `10` plus two fixed bits, 60 random bits.
  return h.replace(/(.{8})(.{4})(.{3})(.{3})/, '$1-$2-7$3-a$4-');
}
