import { InvalidStateError, ValidationError } from '../../errors.ts';
import { csvText, genericCsv, majorUnits, type PayoutLine } from './payout-export.ts';
import { PAYOUT_EXPORT_FORMATS } from '../../../shared/schemas/payout.ts';

// Payout providers: how money for a payout leaves refloop. A provider can export a batch file the
// owner uploads to a payment service, and/or send a payout itself and say what really happened.
// The built-in `manual` provider only exports; the owner then reports each payout's status (REST
// PO2, `refloop payouts mark`). Adapters for the PayPal and Wise payout APIs implement `send`
// against this same interface; none is built in, so nothing here ever claims money moved.

/** Batch file formats a provider may export (docs/decisions.md "Payout providers"; the REST export's `format`). */
export const EXPORT_FORMATS = PAYOUT_EXPORT_FORMATS;

/** A batch file format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an export asks for. */
export interface ExportOptions {
  format: ExportFormat;
  /** Only payouts in this currency (PayPal takes one currency per file). */
  currency?: string;
}

/** A batch file, with the payouts it lists and those it left out and why. */
export interface BatchFile {
  format: ExportFormat;
  contentType: string;
  fileName: string;
  body: string;
  payoutIds: string[];
  skipped: Array<{ payoutId: string; reason: string }>;
}

/**
 * What a provider's `send` reports. Only ISSUED means the money reached the provider's payee;
 * QUEUED = accepted but not settled; FAILED = refused; UNKNOWN = the provider could not tell
 * (timeout, ambiguous answer), so nothing changes and the owner or a later check decides.
 */
export type SendOutcome =
  | { outcome: 'ISSUED'; reference: string }
  | { outcome: 'QUEUED'; reference: string }
  | { outcome: 'FAILED'; reason: string }
  | { outcome: 'UNKNOWN'; reason: string };

/** A payout provider adapter. */
export interface PayoutProvider {
  /** Registry key, lower case (`manual`, later `paypal-payouts`, `wise-api`). */
  readonly name: string;
  /** What it can do; each flag matches the method it implements. `ownerMarks`: the owner reports statuses by hand. */
  readonly capabilities: { readonly export: boolean; readonly send: boolean; readonly ownerMarks: boolean };
  /** Formats `exportBatch` writes. */
  readonly exportFormats: readonly ExportFormat[];
  /** Writes a batch file for these payouts (no I/O: the lines are already read). */
  exportBatch?(lines: PayoutLine[], options: ExportOptions): BatchFile;
  /** Sends one payout through the provider's API and reports what happened; must never answer ISSUED without the provider's confirmation. */
  send?(line: PayoutLine): Promise<SendOutcome>;
}

/** Destination statuses that may be paid (a confirmed email); others are left out of provider files. */
const PAYABLE_DESTINATION = new Set(['CONFIRMED', 'ACTIVE']);

/** PayPal Payouts caps its Customer ID at 30 characters and its note at 400. */
const PAYPAL_NOTE = 'Affiliate commission payout';

function payable(line: PayoutLine, providers: string[]): string | null {
  const d = line.destination;
  if (!d || !providers.includes(d.provider)) return `destination is ${d?.provider ?? 'missing'}`;
  if (!d.status || !PAYABLE_DESTINATION.has(d.status)) return `destination is ${d.status ?? 'no longer on file'}`;
  if (!d.account) return 'destination has no account';
  return null;
}

/** Keeps the lines a provider file can pay, recording why the others are left out. */
function select(lines: PayoutLine[], providers: string[], currency: string | undefined, oneCurrency: boolean): { keep: PayoutLine[]; skipped: BatchFile['skipped'] } {
  const keep: PayoutLine[] = [];
  const skipped: BatchFile['skipped'] = [];
  for (const line of lines) {
    if (currency && line.payout.currency_iso !== currency) continue;
    const why = payable(line, providers);
    if (why) skipped.push({ payoutId: line.payout.id, reason: why });
    else keep.push(line);
  }
  const currencies = new Set(keep.map((l) => l.payout.currency_iso));
  if (oneCurrency && currencies.size > 1) {
    throw new ValidationError('A PayPal payouts file takes one currency; choose one.', [
      { field: 'currency', code: 'REQUIRED', message: `Payouts are in ${[...currencies].sort().join(', ')}.` },
    ]);
  }
  return { keep, skipped };
}

function fileName(format: ExportFormat, currency?: string): string {
  return `payouts-${format}${currency ? `-${currency}` : ''}.csv`;
}

/**
 * The built-in manual provider: writes batch files and leaves issuing and failing to the owner.
 * - `generic`: every payout, with a header row (the REST export PO3).
 * - `paypal`: a PayPal Payouts web upload (no header; recipient, amount, currency, customer id,
 *   note, wallet PAYPAL or VENMO), confirmed PAYPAL and VENMO destinations only, one currency.
 * - `wise`: Wise's "send by email" batch template (header row), confirmed WISECOM destinations only.
 */
export const manualProvider: PayoutProvider = {
  name: 'manual',
  capabilities: { export: true, send: false, ownerMarks: true },
  exportFormats: EXPORT_FORMATS,
  exportBatch(lines, { format, currency }) {
    if (format === 'generic') {
      const keep = currency ? lines.filter((l) => l.payout.currency_iso === currency) : lines;
      return { format, contentType: 'text/csv', fileName: fileName(format, currency), body: genericCsv(keep), payoutIds: keep.map((l) => l.payout.id), skipped: [] };
    }
    if (format === 'paypal') {
      const { keep, skipped } = select(lines, ['PAYPAL', 'VENMO'], currency, true);
      const rows = keep.map((l) => [
        l.destination!.account,
        majorUnits(Number(l.payout.amount), l.payout.currency_iso),
        l.payout.currency_iso,
        l.payout.id,
        PAYPAL_NOTE,
        l.destination!.provider === 'VENMO' ? 'VENMO' : 'PAYPAL',
      ]);
      return { format, contentType: 'text/csv', fileName: fileName(format, currency), body: csvText(rows), payoutIds: keep.map((l) => l.payout.id), skipped };
    }
    const { keep, skipped } = select(lines, ['WISECOM'], currency, false);
    const rows = keep.map((l) => {
      const d = l.destination!;
      const name = d.legalName?.trim() || [l.firstName, l.lastName].filter(Boolean).join(' ').trim() || l.email;
      const cur = l.payout.currency_iso;
      return [name, d.account, l.payout.id, d.legalEntityType === 'BUSINESS' ? 'BUSINESS' : 'PERSON', 'target', majorUnits(Number(l.payout.amount), cur), cur, cur];
    });
    const header = ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'];
    return { format, contentType: 'text/csv', fileName: fileName(format, currency), body: csvText([header, ...rows]), payoutIds: keep.map((l) => l.payout.id), skipped };
  },
};

/** The payout providers this server knows, by name; `manual` is always there. */
export class PayoutProviders {
  readonly #byName = new Map<string, PayoutProvider>();

  constructor(providers: PayoutProvider[] = []) {
    for (const p of [manualProvider, ...providers]) this.register(p);
  }

  /** Adds an adapter; its capability flags must match the methods it implements. */
  register(provider: PayoutProvider): void {
    if (!/^[a-z][a-z0-9-]{1,31}$/.test(provider.name)) throw new TypeError(`Payout provider name ${provider.name} must be lower-case letters, digits and dashes.`);
    if (this.#byName.has(provider.name)) throw new TypeError(`Payout provider ${provider.name} is already registered.`);
    const c = provider.capabilities;
    if (c.export !== Boolean(provider.exportBatch) || c.send !== Boolean(provider.send) || (c.export && provider.exportFormats.length === 0)) {
      throw new TypeError(`Payout provider ${provider.name} claims capabilities it does not implement.`);
    }
    if (!c.send && !c.ownerMarks) throw new TypeError(`Payout provider ${provider.name} can neither send nor let the owner mark payouts.`);
    this.#byName.set(provider.name, provider);
  }

  /** The provider called `name`; 400 for an unknown name (it comes from the caller). */
  get(name: string): PayoutProvider {
    const p = this.#byName.get(name);
    if (!p) throw new ValidationError(`No payout provider ${name.slice(0, 64)}.`, [{ field: 'provider', code: 'INVALID', message: `Known providers: ${this.names().join(', ')}.` }]);
    return p;
  }

  /** Registered names, sorted. */
  names(): string[] {
    return [...this.#byName.keys()].sort();
  }

  /** The provider that handles a payout. Every payout is handled by `manual` until an adapter records itself on payouts (needs a column). */
  handlerOf(): PayoutProvider {
    return this.get('manual');
  }

  /** A provider that can export `format`, else 400 / 406. */
  exporter(name: string, format: ExportFormat): PayoutProvider & Required<Pick<PayoutProvider, 'exportBatch'>> {
    const p = this.get(name);
    if (!p.exportBatch) throw new InvalidStateError(`The ${p.name} payout provider does not export batch files.`);
    if (!p.exportFormats.includes(format)) throw new ValidationError(`The ${p.name} payout provider does not write ${format} files.`, [{ field: 'format', code: 'INVALID', message: `Formats: ${p.exportFormats.join(', ')}.` }]);
    return p as PayoutProvider & Required<Pick<PayoutProvider, 'exportBatch'>>;
  }
}
