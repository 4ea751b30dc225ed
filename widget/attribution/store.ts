// The widget's key-value store: idb-keyval's store (database `refloop`, store `kv`), mirrored in
// memory so a browser without IndexedDB (private modes, blocked storage) still works for the life
// of the page. Nothing here rejects: a storage failure must never reach the host page. Only
// `createStore` and `promisifyRequest` are used: idb-keyval's get/set/del carry a default store
// that the minifier cannot drop, and bytes decide here.
import { createStore, promisifyRequest } from 'idb-keyval';
import type { WidgetRuntime } from '../runtime.ts';

/** The store half of the runtime contract. */
export type Store = WidgetRuntime['store'];

/**
 * Opens the widget's store; IndexedDB is authoritative while it answers, memory when it fails. Keys
 * are kept under `ns` (the program id and a slash): two programs on one site (a referral program on
 * the shop, an affiliate program on /partners) never share a queue, receipts or tokens.
 */
export function openStore(ns: string): Store {
  const mem: Record<string, unknown> = {};
  const kv = createStore('refloop', 'kv');
  // idb-keyval touches `indexedDB` synchronously; a missing or throwing global must become a rejection.
  const io = (mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest) =>
    new Promise<any>((r) => r(kv(mode, (s) => promisifyRequest(f(s)))));
  const write = (f: (s: IDBObjectStore) => IDBRequest) => io('readwrite', (s) => f(s).transaction as unknown as IDBRequest).catch(() => {});
  return {
    get: (k) => ((k = ns + k), io('readonly', (s) => s.get(k)).catch(() => mem[k])),
    set: (k, v) => ((k = ns + k), (mem[k] = v), write((s) => s.put(v, k))),
    del: (k) => ((k = ns + k), delete mem[k], write((s) => s.delete(k))),
  };
}
