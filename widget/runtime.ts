// The contract between the attribution script (widget/attribution, loaded on every page, tiny, no
// framework) and the window bundle (widget/window, Preact, loaded lazily). The attribution script
// builds one WidgetRuntime and hands it to the window bundle's `boot` export; nothing else crosses.
// Types plus one table of store keys: it costs the attribution script only the keys it uses.

/** Referral inputs captured from a landing URL (shared/attribution.ts decides what is kept). */
export interface PendingAttribution {
  /** The referral code (`grsf`, `ref` or `referredBy` value). */
  referralCode?: string;
  /** Allow-listed UTM values (Mobile rule 2). */
  utm?: Record<string, string>;
  /** Click metadata (`click_id`, `unique`, …). */
  click?: Record<string, string>;
  /** Epoch ms when it was captured. */
  capturedAt: number;
}

/** Signed visit receipts returned by `POST /mobile/v2/visits`; attached to participant creation. */
export interface StoredReceipts {
  firstVisit?: string;
  lastVisit?: string;
}

/** A queued `window.growsurf` call made before the window bundle arrived. */
export interface QueuedCall {
  method: string;
  args: unknown[];
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** What the attribution script gives the window bundle. */
export interface WidgetRuntime {
  /** The program (campaign) id from `grsf-campaign` / `grsfSettings.campaignId` / `data-program`. */
  programId: string;
  /** Absolute base of the participant API, e.g. `https://refloop.example/mobile/v2`. */
  apiBase: string;
  /** Absolute base the widget files are served from, e.g. `https://refloop.example/widget/`. */
  assetBase: string;
  /** Optional `installation.mobile.publicKey` from `data-public-key` / `grsfSettings.publicKey`. */
  publicKey?: string;
  /** This browser's stable per-install id (lower-case UUID), kept in IndexedDB. */
  instanceId: string;
  /** Calls made on the stub before boot, in order; boot drains it and settles each promise. */
  queue: QueuedCall[];
  /** IndexedDB key-value access (idb-keyval's get/set/del on the widget's own store); never throws. */
  store: {
    get<T>(key: string): Promise<T | undefined>;
    set(key: string, value: unknown): Promise<void>;
    del(key: string): Promise<void>;
  };
  /** The pending referral attribution, if any (stored by the attribution script). */
  pendingAttribution(): Promise<PendingAttribution | undefined>;
  /** The latest receipts the server returned for recorded visits. */
  receipts(): Promise<StoredReceipts>;
  /** `clearPendingAttribution`: forget the referral code, queued visits and receipts. */
  clearPendingAttribution(): Promise<void>;
  /** Fires a DOM event (`grsfReady`, …) on document (bubbles to window). */
  emit(name: string, detail?: unknown): void;
}

/** Store keys used in IndexedDB (database `refloop`, store `kv`). */
export const STORE_KEYS = {
  instanceId: 'instanceId',
  pending: 'pendingAttribution',
  visits: 'visitQueue',
  receipts: 'receipts',
  sessionToken: 'sessionToken',
  participantToken: 'participantToken',
} as const;

/** The window bundle's module interface: `import(assetBase + 'window.js')` then `boot(runtime)`. */
export interface WindowModule {
  /** Replaces the stub's methods with real ones, drains the queue, renders elements found on the page. */
  boot(runtime: WidgetRuntime): Promise<void>;
}
