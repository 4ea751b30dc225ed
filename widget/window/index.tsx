// The window bundle's entry: the attribution script imports this module lazily and calls `boot`.
import type { WidgetRuntime } from '../runtime.ts';
import { start } from './sdk.tsx';

/** Replaces the `window.growsurf` stub with real methods, settles queued calls, renders elements. */
export async function boot(runtime: WidgetRuntime): Promise<void> {
  await start(runtime);
}
