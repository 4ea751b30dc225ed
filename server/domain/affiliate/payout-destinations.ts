import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Participants } from '../participants/service.ts';
import type { ProgramEmails } from '../messaging/program-emails.ts';
import { teamVerified } from '../messaging/team-verification.ts';
import type { Activity } from '../platform/activity.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { completedDocument } from '../programs/program-config.ts';
import { taxInfoRequired } from './tax-info.ts';
import type { ParticipantRow, Q } from '../participants/model.ts';
import { maskEmail } from '../messaging/email-layout.ts';
import { payoutConfirmation } from '../programs/email-copy/index.ts';
import { newId, newSecret, sha256 } from '../../crypto.ts';
import { InvalidStateError, RateLimitedError, TeamNotVerifiedError, ValidationError, WrongProgramTypeError } from '../../errors.ts';
import { PAYOUT_PROVIDERS, PROVIDER_DISPLAY_NAMES, type PayoutProvider } from '../../../shared/schemas/affiliate.ts';
import type { PayoutRequiredAction } from '../../../shared/schemas/participant.ts';

/** How long a confirmation link works. */
export const CONFIRMATION_TTL_MS = 24 * 3_600_000;

/** The shortest time between two confirmation emails for one participant and provider. */
export const CONFIRMATION_INTERVAL_MS = 60_000;

/** Destination statuses that get paid. */
const PAYABLE = ['CONFIRMED', 'ACTIVE'];

interface DestinationRow {
  id: string;
  program_id: string;
  participant_id: string;
  provider: PayoutProvider;
  account: string;
  country: string | null;
  status: string;
  legal_entity_type: 'INDIVIDUAL' | 'BUSINESS' | null;
  legal_name: string | null;
  needs_repair_reason: string | null;
  confirmed_at: number | null;
}

/** The providers a program has enabled, in their canonical order (Wise only on affiliate programs). */
export function enabledProviders(program: Program): PayoutProvider[] {
  const o = completedDocument('options', program, program.documents.options) as { payoutSettings?: { enabledProviders?: PayoutProvider[] } };
  const on = new Set(o.payoutSettings?.enabledProviders ?? []);
  return PAYOUT_PROVIDERS.filter((p) => on.has(p) && (p !== 'WISECOM' || program.type === 'AFFILIATE'));
}

/** True when the participant is someone the program pays: an enrolled affiliate, or anyone on a referral program. */
function isPayee(program: Program, p: Pick<ParticipantRow, 'is_affiliate'>): boolean {
  return program.type === 'REFERRAL' || !!p.is_affiliate;
}

/**
 * `payoutSettings.requiredActions` of several participants (rest-v2 §2.10, §4): PAYPAL_EMAIL while
 * no enabled provider has a confirmed destination (the value the official Python client and MCP
 * server accept for any provider, not the TS SDK's PAYOUT_DESTINATION), TAX_INFO while tax
 * information is required and not submitted. Two indexed reads for the whole batch, none when the
 * program pays nobody.
 */
export async function payoutRequiredActions(q: Q, program: Program, rows: ParticipantRow[]): Promise<Map<string, PayoutRequiredAction[]>> {
  const out = new Map<string, PayoutRequiredAction[]>();
  const providers = enabledProviders(program);
  const needTax = taxInfoRequired(program);
  const payees = rows.filter((r) => isPayee(program, r)).map((r) => r.id);
  if (!payees.length || (!providers.length && !needTax)) return out;
  const [destinations, taxes] = await Promise.all([
    providers.length ? q('payout_destinations').where({ program_id: program.id }).whereIn('participant_id', payees).select('participant_id', 'provider', 'status') : [],
    needTax ? q('tax_profiles').where({ program_id: program.id, status: 'SUBMITTED' }).whereIn('participant_id', payees).select('participant_id') : [],
  ]);
  const paid = new Set(destinations.filter((d: DestinationRow) => PAYABLE.includes(d.status) && providers.includes(d.provider)).map((d: DestinationRow) => d.participant_id));
  const taxed = new Set(taxes.map((t: { participant_id: string }) => t.participant_id));
  for (const id of payees) {
    const actions: PayoutRequiredAction[] = [];
    if (providers.length && !paid.has(id)) actions.push('PAYPAL_EMAIL');
    if (needTax && !taxed.has(id)) actions.push('TAX_INFO');
    out.set(id, actions);
  }
  return out;
}

/**
 * Payout destinations (rest-v2 §2.34, P14/P15, mobile rule 8): one current destination per
 * participant, confirmed by the participant through a one-time expiring link emailed to them (only
 * the link's SHA-256 is stored). Venmo needs a confirmed email and a US recipient; Wise is for
 * affiliate programs only.
 */
export class PayoutDestinations {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly participants: Participants,
    private readonly programEmails: ProgramEmails,
    private readonly activity: Activity,
  ) {
    participants.hooks.requiredActionsOf = (q, program, rows) => payoutRequiredActions(q, program, rows);
  }

  /** The participant's current destination, for the payout engine (CSV export). */
  async current(trx: Q, programId: string, participantId: string): Promise<{ provider: PayoutProvider; account: string; status: string; country: string | null } | null> {
    const row = await trx('payout_destinations').where({ program_id: programId, participant_id: participantId }).first('provider', 'account', 'status', 'country');
    return row ? { provider: row.provider, account: row.account, status: row.status, country: row.country } : null;
  }

  /** P14 for a path's participant id or email. */
  async statusOf(program: Program, idOrEmail: string) {
    const p = await this.participants.resolve(this.db.knex, program, idOrEmail);
    return this.status(program, p);
  }

  /** P14: one entry per enabled provider, and the provider currently paid. */
  async status(program: Program, p: ParticipantRow) {
    const providers = enabledProviders(program);
    const now = this.clock.now();
    const [current, confirmations] = await Promise.all([
      this.db.knex('payout_destinations').where({ program_id: program.id, participant_id: p.id }).first() as Promise<DestinationRow | undefined>,
      this.db.knex('payout_confirmations').where({ program_id: program.id, participant_id: p.id }).orderBy('created_at', 'desc').select('provider', 'expires_at', 'used_at'),
    ]);
    const destinations = providers.map((provider) => {
      const mine = current?.provider === provider ? current : null;
      const latest = confirmations.find((c: { provider: string }) => c.provider === provider);
      const pending = latest && latest.used_at === null ? (Number(latest.expires_at) > now ? 'PENDING_CONFIRMATION' : 'EXPIRED') : null;
      return {
        provider,
        providerDisplayName: PROVIDER_DISPLAY_NAMES[provider],
        // A destination being replaced keeps its status; superseded providers read NONE (§2.34).
        status: mine ? mine.status : (pending ?? 'NONE'),
        claimEmail: mine ? mine.account : null,
        confirmedAt: mine?.confirmed_at == null ? null : Number(mine.confirmed_at),
        legalEntityType: mine?.legal_entity_type ?? null,
        needsRepairReason: mine?.needs_repair_reason ?? null,
      };
    });
    const active = current && PAYABLE.includes(current.status) && providers.includes(current.provider) ? current.provider : null;
    return { activeProvider: active, enabledProviders: providers as string[], destinations };
  }

  /** The window's provider list: each enabled provider and whether this participant may confirm it now. */
  async providersFor(program: Program, participantId: string | null): Promise<Array<{ provider: string; canConfirm: boolean }>> {
    const providers = enabledProviders(program);
    if (!providers.length) return [];
    const p: ParticipantRow | undefined = participantId ? await this.db.knex('participants').where({ id: participantId, program_id: program.id }).first() : undefined;
    const out = [];
    for (const provider of providers) out.push({ provider, canConfirm: p ? (await this.#refusal(this.db.knex, program, p, provider)) === null : false });
    return out;
  }

  /** P15 for a path's participant id or email. */
  async requestFor(program: Program, idOrEmail: string, provider: PayoutProvider) {
    const p = await this.participants.resolve(this.db.knex, program, idOrEmail);
    return this.request(program, p.id, provider);
  }

  /**
   * P15 and the participant API's confirmation request: emails a new one-time link for `provider`
   * (earlier unused links for it stop working). 403 while the team is not VERIFIED, nothing sent.
   */
  async request(program: Program, participantId: string, provider: PayoutProvider): Promise<{ status: 'CONFIRMATION_REQUESTED'; provider: string; providerDisplayName: string; expiresAt: number }> {
    if (provider === 'WISECOM' && program.type !== 'AFFILIATE') throw new WrongProgramTypeError('Wise payouts are only for affiliate programs.');
    if (!enabledProviders(program).includes(provider)) {
      throw new ValidationError(`${provider} payouts are not enabled for this program.`, [{ field: 'provider', code: 'PROVIDER_NOT_ENABLED', message: `Enabled: ${enabledProviders(program).join(', ') || 'none'}.` }]);
    }
    if (!(await teamVerified(this.db.knex, program.teamId))) throw new TeamNotVerifiedError('The team must be verified before payout confirmation emails can be sent. Request verification with POST /team/verification-request.');
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const p: ParticipantRow = await trx('participants').where({ id: participantId, program_id: program.id }).forNoKeyUpdate().first();
      const refusal = await this.#refusal(trx, program, p, provider);
      if (refusal) throw new InvalidStateError(refusal);
      const last = await trx('payout_confirmations').where({ participant_id: p.id, provider }).max({ at: 'created_at' }).first();
      const wait = last?.at == null ? 0 : Number(last.at) + CONFIRMATION_INTERVAL_MS - now;
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new RateLimitedError('PAYOUT_CONFIRMATION', `A confirmation email was sent moments ago; request another in ${seconds} seconds.`, { 'Retry-After': String(seconds) });
      }
      await trx('payout_confirmations').where({ participant_id: p.id, provider }).whereNull('used_at').del();
      const token = newSecret(24);
      const expiresAt = now + CONFIRMATION_TTL_MS;
      await trx('payout_confirmations').insert({ id: newId(), program_id: program.id, participant_id: p.id, provider, token_hash: sha256(token), created_at: now, expires_at: expiresAt, used_at: null });
      const url = `${this.config.publicUrl}/payout-confirm?token=${token}`;
      const current = await this.current(trx, program.id, p.id);
      // A confirmation is transactional: the participant asked for it, so an unsubscribe from program emails does not stop it.
      const recipient = { ...p, unsubscribed: false };
      const outcome =
        provider === 'PAYPAL'
          ? await this.programEmails.sendProgramEmail(trx, program, recipient, 'paypalEmailConfirmation', { confirmationUrl: url, paypalEmail: current?.provider === 'PAYPAL' ? current.account : p.email }, { ignoreEnabled: true })
          : await this.programEmails.sendComposed(
              trx,
              program,
              recipient,
              // §2.19 has a template for PayPal only: Venmo and Wise use built-in copy, in the participant's language.
              payoutConfirmation(this.programEmails.languageOf(program, p)),
              { confirmationUrl: url, payoutProvider: PROVIDER_DISPLAY_NAMES[provider] },
              { emailType: 'payoutDestinationConfirmation', data: { provider } },
            );
      if (!outcome.sent) throw new TeamNotVerifiedError();
      return { status: 'CONFIRMATION_REQUESTED' as const, provider, providerDisplayName: PROVIDER_DISPLAY_NAMES[provider], expiresAt };
    });
  }

  /** What the confirmation page shows for a link, or why it does not work. */
  async target(token: string): Promise<{ ok: true; program: Program; provider: PayoutProvider; email: string; language: string | null } | { ok: false; reason: 'tokenExpired' | 'tokenUsed' | 'generic' }> {
    const c = await this.#confirmation(this.db.knex, token);
    if (!c) return { ok: false, reason: 'generic' };
    if (c.used_at !== null) return { ok: false, reason: 'tokenUsed' };
    if (Number(c.expires_at) <= this.clock.now()) return { ok: false, reason: 'tokenExpired' };
    const [programRow, p] = await Promise.all([this.db.knex('programs').where({ id: c.program_id }).first(), this.db.knex('participants').where({ id: c.participant_id }).first('email', 'language')]);
    if (!programRow || !p) return { ok: false, reason: 'generic' };
    return { ok: true, program: toProgram(programRow), provider: c.provider, email: maskEmail(p.email), language: p.language ?? null };
  }

  /**
   * Completes a confirmation from the page: the payout email (typed twice), legal name and entity
   * type become the participant's current destination, CONFIRMED, and the link is used up.
   * Returns per-field errors, or a link error, or null on success.
   */
  async confirm(token: string, form: { email: string; emailAgain: string; legalName: string; legalEntityType: string }): Promise<Record<string, string> | null> {
    const email = form.email.trim();
    const errors: Record<string, string> = {};
    if (!/^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/.test(email) || email.length > 254) errors.email = 'invalidEmail';
    else if (email.toLowerCase() !== form.emailAgain.trim().toLowerCase()) errors.emailAgain = 'emailMismatch';
    if (!form.legalName.trim() || form.legalName.trim().length > 255) errors.legalName = 'generic';
    if (form.legalEntityType !== 'INDIVIDUAL' && form.legalEntityType !== 'BUSINESS') errors.legalEntityType = 'generic';
    if (Object.keys(errors).length) return errors;
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const c = await this.#confirmation(trx, token, true);
      if (!c) return { token: 'generic' };
      if (c.used_at !== null) return { token: 'tokenUsed' };
      if (Number(c.expires_at) <= now) return { token: 'tokenExpired' };
      const programRow = await trx('programs').where({ id: c.program_id }).first();
      const p: ParticipantRow | undefined = await trx('participants').where({ id: c.participant_id }).forNoKeyUpdate().first();
      if (!programRow || !p) return { token: 'generic' };
      const program = toProgram(programRow);
      if (!enabledProviders(program).includes(c.provider) || (await this.#refusal(trx, program, p, c.provider))) return { token: 'generic' };
      const country = c.provider === 'VENMO' ? 'US' : await this.#residency(trx, program.id, p.id);
      const values = { provider: c.provider, account: email, country, status: 'CONFIRMED', legal_entity_type: form.legalEntityType, legal_name: form.legalName.trim(), needs_repair_reason: null, confirmed_at: now, updated_at: now };
      const updated = await trx('payout_destinations').where({ program_id: program.id, participant_id: p.id }).update(values);
      if (!updated) await trx('payout_destinations').insert({ id: newId(), program_id: program.id, participant_id: p.id, created_at: now, ...values });
      await trx('payout_confirmations').where({ id: c.id }).update({ used_at: now });
      if (c.provider === 'PAYPAL') await trx('participants').where({ id: p.id }).update({ paypal_email: email, updated_at: now });
      await this.activity.record(trx, { programId: program.id, participantId: p.id, type: 'COMMON', action: 'payout.destination_confirmed', text: `Confirmed ${PROVIDER_DISPLAY_NAMES[c.provider]} payouts to ${maskEmail(email)}`, data: { provider: c.provider } });
      return null;
    });
  }

  /** Why this participant cannot confirm `provider` now, or null (mobile rule 8). */
  async #refusal(q: Q, program: Program, p: ParticipantRow, provider: PayoutProvider): Promise<string | null> {
    if (!isPayee(program, p)) return 'Only enrolled affiliates of this program have payout destinations.';
    if (provider === 'WISECOM' && program.type !== 'AFFILIATE') return 'Wise payouts are only for affiliate programs.';
    if (provider === 'VENMO' && (await this.#residency(q, program.id, p.id)) !== 'US') {
      return 'Venmo payouts need a recipient in the United States: save your tax residency country (US) first.';
    }
    return null;
  }

  /** The participant's country: the tax residency they saved, else their current destination's. */
  async #residency(q: Q, programId: string, participantId: string): Promise<string | null> {
    const tax = await q('tax_profiles').where({ program_id: programId, participant_id: participantId }).first('residency_country');
    if (tax?.residency_country) return tax.residency_country;
    return (await q('payout_destinations').where({ program_id: programId, participant_id: participantId }).first('country'))?.country ?? null;
  }

  async #confirmation(q: Q, token: string, lock = false) {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
    const query = q('payout_confirmations').where({ token_hash: sha256(token) });
    if (lock) (query as Knex.QueryBuilder).forUpdate();
    return ((await query.first()) as { id: string; program_id: string; participant_id: string; provider: PayoutProvider; expires_at: number; used_at: number | null } | undefined) ?? null;
  }
}
