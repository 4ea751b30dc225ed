import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { ProgramEmails } from '../messaging/program-emails.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { completedDocument } from '../programs/program-config.ts';
import type { ParticipantRow, Q } from '../participants/model.ts';
import { newSecret, sha256 } from '../../crypto.ts';
import { NotFoundError } from '../../errors.ts';
import { isCountryCode, type TaxStatus } from '../../../shared/schemas/affiliate.ts';

/** How long a hosted tax page link works. */
export const TAX_SESSION_TTL_MS = 30 * 60_000;

interface TaxRow {
  program_id: string;
  participant_id: string;
  status: TaxStatus['status'];
  form_type: 'W9' | 'W8' | null;
  residency_country: string | null;
  vat_number: string | null;
  legal_name: string | null;
  submitted_at: number | null;
  session_hash: string | null;
  session_expires_at: number | null;
}

/** What the hosted form sends. `taxId` is checked for shape and then dropped: it is never stored or logged. */
export interface TaxForm {
  formType: string;
  legalName: string;
  residencyCountryCode: string;
  vatNumber: string;
  taxId: string;
  certify: boolean;
}

/** US taxpayer ids: an SSN/ITIN (9 digits, 3-2-4) or an EIN (9 digits, 2-7). */
const US_TIN = /^(\d{3}-?\d{2}-?\d{4}|\d{2}-?\d{7})$/;
/** A foreign taxpayer id: 4–30 letters, digits, spaces, dots, dashes or slashes. */
const FOREIGN_TIN = /^[A-Za-z0-9][A-Za-z0-9 ./-]{2,28}[A-Za-z0-9]$/;
const VAT = /^[A-Za-z0-9 .-]{2,32}$/;

/** True when `requireTaxInfo` is on in the program's payout settings. */
export function taxInfoRequired(program: Program): boolean {
  const o = completedDocument('options', program, program.documents.options) as { payoutSettings?: { requireTaxInfo?: boolean } };
  return o.payoutSettings?.requireTaxInfo === true;
}

/**
 * Tax information (mobile rule 9): a hosted page of our own, reached by a signed short-lived link,
 * where the participant picks W-9 or W-8, a residency country and an optional VAT number. The tax id
 * number the form asks for is validated for shape and never stored or logged. A session's nonce is
 * stored hashed; a new session or a submission ends the previous link.
 */
export class TaxInfo {
  readonly #key: Buffer;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly programEmails: ProgramEmails,
    instanceSecret: string,
  ) {
    this.#key = crypto.createHmac('sha256', instanceSecret).update('refloop:tax-session').digest();
  }

  /** The stored, sanitised tax status (no refresh); for other engines inside their transaction. */
  async status(trx: Q, programId: string, participantId: string): Promise<TaxStatus> {
    const [row, programRow] = await Promise.all([this.#row(trx, programId, participantId), trx('programs').where({ id: programId }).first()]);
    return toWire(row, programRow ? taxInfoRequired(toProgram(programRow)) : false);
  }

  /** getTaxInfoStatus: the stored status as is. */
  async read(program: Program, participantId: string): Promise<TaxStatus> {
    return toWire(await this.#row(this.db.knex, program.id, participantId), taxInfoRequired(program));
  }

  /** refreshTaxInfoStatus: reconciles first (a hosted session whose link expired is closed), then reads. */
  async refresh(program: Program, participantId: string): Promise<TaxStatus> {
    return this.db.knex.transaction(async (trx) => {
      const row = await this.#row(trx, program.id, participantId, true);
      if (row && row.session_expires_at !== null && Number(row.session_expires_at) <= this.clock.now()) {
        const status = row.submitted_at !== null ? 'SUBMITTED' : 'NOT_STARTED';
        await trx('tax_profiles').where({ program_id: program.id, participant_id: participantId }).update({ status, session_hash: null, session_expires_at: null, updated_at: this.clock.now() });
        return toWire({ ...row, status, session_hash: null, session_expires_at: null }, taxInfoRequired(program));
      }
      return toWire(row, taxInfoRequired(program));
    });
  }

  /** requestTaxInfoSession: a new hosted-page link (the previous one stops working) and the new status. */
  async startSession(program: Program, participantId: string, residencyCountryCode?: string): Promise<{ hostedUrl: string; expiresAt: number; taxStatus: TaxStatus }> {
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const row = await this.#row(trx, program.id, participantId, true);
      const nonce = newSecret(18);
      const expiresAt = now + TAX_SESSION_TTL_MS;
      const patch = {
        status: row?.status === 'SUBMITTED' ? 'SUBMITTED' : 'SESSION_STARTED',
        session_hash: sha256(nonce),
        session_expires_at: expiresAt,
        ...(residencyCountryCode ? { residency_country: residencyCountryCode } : {}),
      } as const;
      const next = await this.#upsert(trx, program.id, participantId, row, patch, now);
      const token = `${program.id}.${participantId}.${expiresAt}.${nonce}`;
      return { hostedUrl: `${this.config.publicUrl}/tax?token=${token}.${this.#mac(token)}`, expiresAt, taxStatus: toWire(next, taxInfoRequired(program)) };
    });
  }

  /** saveTaxResidency. */
  async saveResidency(program: Program, participantId: string, country: string): Promise<{ success: true; taxStatus: TaxStatus }> {
    return this.#save(program, participantId, { residency_country: country });
  }

  /** saveTaxVat: an empty number clears it. */
  async saveVat(program: Program, participantId: string, number: string): Promise<{ success: true; taxStatus: TaxStatus }> {
    return this.#save(program, participantId, { vat_number: number.trim() === '' ? null : number.trim().toUpperCase() });
  }

  /** The program and participant of a valid, unexpired, still current hosted-page link; null otherwise. */
  async pageTarget(token: string): Promise<{ program: Program; participant: ParticipantRow; row: TaxRow } | null> {
    const m = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.(\d{1,16})\.([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return null;
    const signed = `${m[1]}.${m[2]}.${m[3]}.${m[4]}`;
    const expected = Buffer.from(this.#mac(signed));
    const given = Buffer.from(m[5]!);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
    if (Number(m[3]) <= this.clock.now()) return null;
    const row = await this.#row(this.db.knex, m[1]!, m[2]!);
    if (!row || row.session_hash !== sha256(m[4]!)) return null;
    const [programRow, participant] = await Promise.all([this.db.knex('programs').where({ id: m[1] }).first(), this.db.knex('participants').where({ id: m[2], program_id: m[1] }).first()]);
    if (!programRow || !participant) return null;
    return { program: toProgram(programRow), participant, row };
  }

  /**
   * Validates a hosted form submission: per-field error codes (the page words them in the reader's
   * language, `tax.error.<code>`), or null when it is accepted and stored
   * (form type, legal name, residency, VAT; never the tax id), the link used up and `taxInfoReceived`
   * sent (skipped and logged while the team is not VERIFIED).
   */
  async submit(token: string, form: TaxForm): Promise<Record<string, string> | null> {
    const errors: Record<string, string> = {};
    const formType = form.formType === 'W9' || form.formType === 'W8' ? form.formType : null;
    if (!formType) errors.formType = 'formType';
    const country = form.residencyCountryCode.trim().toUpperCase();
    if (!isCountryCode(country)) errors.residencyCountryCode = 'country';
    else if (formType === 'W9' && country !== 'US') errors.residencyCountryCode = 'w9NotUs';
    else if (formType === 'W8' && country === 'US') errors.residencyCountryCode = 'w8Us';
    const legalName = form.legalName.trim();
    if (!legalName || legalName.length > 255) errors.legalName = 'legalName';
    const taxId = form.taxId.trim();
    if (!(formType === 'W8' ? FOREIGN_TIN : US_TIN).test(taxId)) errors.taxId = formType === 'W8' ? 'foreignTin' : 'usTin';
    const vat = form.vatNumber.trim();
    if (vat && !VAT.test(vat)) errors.vatNumber = 'vat';
    if (!form.certify) errors.certify = 'certify';
    if (Object.keys(errors).length) return errors;
    const target = await this.pageTarget(token);
    if (!target) return { token: 'expired' };
    await this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const n = await trx('tax_profiles')
        .where({ program_id: target.program.id, participant_id: target.participant.id, session_hash: target.row.session_hash })
        .update({ status: 'SUBMITTED', form_type: formType, residency_country: country, vat_number: vat ? vat.toUpperCase() : null, legal_name: legalName, submitted_at: now, session_hash: null, session_expires_at: null, updated_at: now });
      if (n === 0) return;
      // Transactional (the answer to their own submission): an unsubscribe from program emails does not stop it.
      await this.programEmails.sendProgramEmail(trx, target.program, { ...target.participant, unsubscribed: false }, 'taxInfoReceived');
    });
    return null;
  }

  async #save(program: Program, participantId: string, patch: Partial<TaxRow>): Promise<{ success: true; taxStatus: TaxStatus }> {
    return this.db.knex.transaction(async (trx) => {
      const row = await this.#row(trx, program.id, participantId, true);
      const next = await this.#upsert(trx, program.id, participantId, row, patch, this.clock.now());
      return { success: true as const, taxStatus: toWire(next, taxInfoRequired(program)) };
    });
  }

  async #upsert(trx: Knex.Transaction, programId: string, participantId: string, row: TaxRow | null, patch: Partial<TaxRow>, now: number): Promise<TaxRow> {
    if (row) {
      await trx('tax_profiles').where({ program_id: programId, participant_id: participantId }).update({ ...patch, updated_at: now });
      return { ...row, ...patch };
    }
    const exists = await trx('participants').where({ id: participantId, program_id: programId }).first('id');
    if (!exists) throw new NotFoundError(`No participant ${participantId} in program ${programId}.`);
    const fresh: TaxRow = { program_id: programId, participant_id: participantId, status: 'NOT_STARTED', form_type: null, residency_country: null, vat_number: null, legal_name: null, submitted_at: null, session_hash: null, session_expires_at: null, ...patch };
    await trx('tax_profiles').insert({ ...fresh, updated_at: now });
    return fresh;
  }

  async #row(q: Q, programId: string, participantId: string, lock = false): Promise<TaxRow | null> {
    const query = q('tax_profiles').where({ program_id: programId, participant_id: participantId });
    if (lock) query.forUpdate();
    return (await query.first()) ?? null;
  }

  #mac(value: string): string {
    return crypto.createHmac('sha256', this.#key).update(value).digest('base64url');
  }
}

function toWire(row: TaxRow | null, required: boolean): TaxStatus {
  return {
    status: row?.status ?? 'NOT_STARTED',
    required,
    formType: row?.form_type ?? null,
    residencyCountryCode: row?.residency_country ?? null,
    vatNumber: row?.vat_number ?? null,
    submittedAt: row?.submitted_at == null ? null : Number(row.submitted_at),
    sessionExpiresAt: row?.session_expires_at == null ? null : Number(row.session_expires_at),
  };
}
