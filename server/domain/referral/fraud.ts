import net from 'node:net';
import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { newId } from '../crypto.ts';
import type { CampaignOptions } from '../../shared/schemas/program-config.ts';
import { completeDocument } from './program-config.ts';
import { isDisposableEmail } from './email-policy.ts';
import type { Activity } from './activity.ts';
import type { Webhooks } from './webhooks.ts';
import type { Program, Programs } from './programs.ts';
import type { Participants } from './participants/service.ts';
import { emailKey, gdprStrict, parseJson, type ParticipantRow, type Q, type ScreeningCandidate, type ScreeningDecision } from './participants/model.ts';

// Anti-fraud (issue #4 "Fraud"; rest-v2 §2.8 fraud fields, §2.20 options.fraud, the seed's 422
// "participant blocked"). Two kinds of evidence:
//
// - Owner rules: blocked emails, email domains and IPs (CIDR ranges too), burner domains when
//   `blockBurnerEmails` is on, the per-IP sign-up limits, an IP that already produced a HIGH-risk
//   participant when `autoBlockHighRiskIps` is on, and the country lists when the operator's proxy
//   names the country (GEO_COUNTRY_HEADER). A hit is HIGH and always refused with 422: the owner
//   already decided. A reCAPTCHA that fails is refused before screening (server/domain/recaptcha.ts);
//   one that could not be checked is a signal of weight 1.
// - Signals, weighed: compared with the referrer (same mailbox after normalising the email 3, same
//   app install 3, same browser fingerprint 2, same IP 1, same name part at another domain 1) and
//   with other participants (same app install 2, same fingerprint 1). 0 → LOW, 1–2 → MEDIUM, ≥3 →
//   HIGH. Signals block only when `autoBlockFraud` is on, `requireManualFraudApproval` is off and
//   `fraud.strictness` covers the level (STRICT: MEDIUM and HIGH; STANDARD: HIGH; LENIENT: HIGH
//   backed by two or more signals).
//
// Every decision is stored with its reasons in `fraud_decisions`; flagged participants are created
// but their referral is not credited automatically.

/** `Participant.fraudRiskLevel`. */
export type RiskLevel = ParticipantRow['fraud_risk_level'];

/** Reason codes we set (rest-v2 §4 lists `UNIQUE_IDENTITY`, `DUPLICATE_EMAIL`, `MANUAL_UPDATE` as an open list). */
export const REASON = {
  uniqueIdentity: 'UNIQUE_IDENTITY',
  allowlisted: 'ALLOWLISTED',
  manualUpdate: 'MANUAL_UPDATE',
  selfReferral: 'SELF_REFERRAL',
  duplicateEmail: 'DUPLICATE_EMAIL',
  similarEmail: 'SIMILAR_EMAIL',
  sameDevice: 'SAME_DEVICE',
  sameFingerprint: 'SAME_FINGERPRINT',
  sameIp: 'SAME_IP',
  duplicateDevice: 'DUPLICATE_DEVICE',
  duplicateFingerprint: 'DUPLICATE_FINGERPRINT',
  blockedEmail: 'BLOCKED_EMAIL',
  blockedEmailDomain: 'BLOCKED_EMAIL_DOMAIN',
  blockedIp: 'BLOCKED_IP',
  burnerEmail: 'BURNER_EMAIL',
  ipSignupRate: 'IP_SIGNUP_RATE',
  highRiskIp: 'HIGH_RISK_IP',
  blockedCountry: 'BLOCKED_COUNTRY',
  recaptchaFailed: 'RECAPTCHA_FAILED',
  recaptchaUnverified: 'RECAPTCHA_UNVERIFIED',
} as const;

/** Most participants one decision lists in `matches` (and `allMatchingFraudsters` shows). */
export const MAX_MATCHES = 20;

/** What `assess` concludes about one candidate. */
export interface FraudAssessment {
  riskLevel: RiskLevel;
  reasonCode: string;
  /** Human sentences, one per rule or signal, for the owner. */
  reasons: string[];
  /** Other participants the checks matched (the referrer included). */
  matches: string[];
  /** An owner rule matched: always refused at sign-up. */
  ruleHit: boolean;
  /** Independent signals that matched (LENIENT blocks HIGH only with two or more). */
  signals: number;
  /** The referral should wait for review instead of being credited automatically. */
  holdCredit: boolean;
}

/** A stored decision as the owner reads it. */
export interface FraudDecision {
  id: string;
  participantId: string;
  riskLevel: RiskLevel;
  previousRiskLevel: RiskLevel | null;
  reasonCode: string;
  reasons: string[];
  matches: string[];
  source: 'AUTOMATIC' | 'MANUAL';
  context: 'SIGNUP' | 'REFERRAL_CHANGE' | 'OWNER_UPDATE';
  actor: string | null;
  /** False when an earlier manual verdict kept this automatic result off the participant. */
  applied: boolean;
  createdAt: number;
}

/** A decision about to be stored. */
type Pending = Omit<FraudDecision, 'id' | 'participantId' | 'createdAt' | 'previousRiskLevel'> & {
  previous: { level: RiskLevel; code: string | null } | null;
};

const LEVEL_RANK: Record<RiskLevel, number> = { LOW: 0, MEDIUM: 1, HIGH: 2 };
/** Role mailboxes: the same name at two domains says nothing about the person. */
const ROLE_LOCALS = new Set(['info', 'admin', 'contact', 'hello', 'sales', 'support', 'office', 'mail', 'team', 'billing', 'help', 'hi', 'me', 'test']);
/** Mailboxes where dots in the name part are ignored, and the aliases of their domain. */
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The mailbox an address delivers to, as far as we can tell: lower-cased, a `+tag` removed (most
 * providers deliver `name+tag@` to `name@`), and for Gmail the dots removed and googlemail.com folded in.
 */
export function canonicalEmail(email: string): string {
  const lower = emailKey(email);
  const at = lower.lastIndexOf('@');
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  if (dotless) {
    domain = dotless;
    local = local.replace(/\./g, '');
  }
  return `${local}@${domain}`;
}

/** The name part with separators removed, for "same person, other provider" (null for short or role names). */
function personalName(canonical: string): string | null {
  const local = canonical.slice(0, canonical.lastIndexOf('@'));
  if (ROLE_LOCALS.has(local)) return null;
  const bare = local.replace(/[._-]/g, '');
  return bare.length >= 4 ? bare : null;
}

/** One textual form per address: IPv4-mapped IPv6 as IPv4, IPv6 compressed and lower-cased. */
export function canonicalIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v = ip.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(v);
  if (mapped) return mapped[1]!;
  if (net.isIPv6(v)) {
    try {
      return new URL(`http://[${v}]/`).hostname.slice(1, -1);
    } catch {
      return v.toLowerCase();
    }
  }
  return v;
}

/** The forms an address may be stored in: as sent, and canonical (stored values are whatever the caller sent). */
function storedForms(ip: string): string[] {
  return [...new Set([ip, canonicalIp(ip)!])];
}

/** True when `ip` is the address or inside the CIDR range `entry` (IPv4 entries also match IPv4-mapped IPv6). */
export function ipInEntry(ip: string, entry: string): boolean {
  const [addr, bits] = entry.split('/');
  const family = net.isIPv4(addr!) ? 'ipv4' : net.isIPv6(addr!) ? 'ipv6' : null;
  if (!family) return false;
  const list = new net.BlockList();
  try {
    if (bits === undefined) list.addAddress(addr!, family);
    else list.addSubnet(addr!, Number(bits), family);
    return list.check(ip, net.isIPv4(ip) ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
}

/** True when an email domain is `entry` or below it; `*.example.com` means subdomains only. */
function domainMatches(domain: string, entry: string): boolean {
  if (entry.startsWith('*.')) return domain.endsWith(entry.slice(1));
  return domain === entry || domain.endsWith(`.${entry}`);
}

/**
 * Whether the program's email rules refuse an address: not on the allowed list, and on the blocked
 * list (the same mailbox: case, `+tag` and Gmail dots ignored), at a blocked domain (its subdomains
 * too; `*.domain` only subdomains) or, with `blockBurnerEmails`, at a disposable provider. Sign-up
 * screening (`Fraud.assess`) applies the same rules; invitations use this to skip such addresses.
 */
export function emailRefused(email: string, o: CampaignOptions['fraud']): boolean {
  const key = emailKey(email);
  const canon = canonicalEmail(key);
  const same = (entry: string) => entry === key || canonicalEmail(entry) === canon;
  if (o.allowedEmails.some(same)) return false;
  const domain = canon.slice(canon.lastIndexOf('@') + 1);
  return o.blockedEmails.some(same) || o.blockedEmailDomains.some((d) => domainMatches(domain, d)) || (o.blockBurnerEmails && isDisposableEmail(key));
}

function encodeIds(ids: string[]): string | null {
  return ids.length ? JSON.stringify(ids.slice(0, MAX_MATCHES)) : null;
}

function mergeIds(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])].slice(0, MAX_MATCHES);
}

function plural(n: number, word: string, capped = false): string {
  return `${capped && n >= MAX_MATCHES ? `${MAX_MATCHES} or more` : n} ${word}${n === 1 ? '' : 's'}`;
}

/** The anti-fraud engine: assesses sign-ups and referral changes, stores every decision, applies owner overrides. */
export class Fraud {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly participants: Participants,
    private readonly activity: Activity,
    private readonly webhooks: Webhooks,
    private readonly programs: Programs,
  ) {}

  /** The program's options document with today's defaults filled in. */
  options(program: Program): CampaignOptions {
    return completeDocument('options', program, program.documents.options) as CampaignOptions;
  }

  /**
   * The decision function: owner rules and weighed signals for `candidate`, compared with `referrer`
   * when there is one and with the program's other participants. Reads only; nothing is written.
   * Under `enforceGdprCompliance` nothing of the kind is stored, so the in-request IP, fingerprint
   * and app install id meet only values stored before the mode was switched on.
   */
  async assess(q: Q, program: Program, candidate: ScreeningCandidate, referrer: ParticipantRow | null = null): Promise<FraudAssessment> {
    const options = this.options(program);
    const o = options.fraud;
    const email = emailKey(candidate.email);
    const canon = canonicalEmail(email);
    const domain = canon.slice(canon.lastIndexOf('@') + 1);
    const ip = canonicalIp(candidate.ipAddress);
    const fingerprint = candidate.fingerprint || null;
    const instance = candidate.mobileInstanceId?.toLowerCase() || null;
    const sameAddress = (entry: string) => entry === email || canonicalEmail(entry) === canon;

    if (o.allowedEmails.some(sameAddress)) {
      return {
        riskLevel: 'LOW',
        reasonCode: REASON.allowlisted,
        reasons: ['The email address is on the program’s allowed list, so the anti-fraud checks do not apply.'],
        matches: [],
        ruleHit: false,
        signals: 0,
        holdCredit: false,
      };
    }
    // An allowed IP (an office, a shop's tablet) exempts only the IP checks; device and email checks still run.
    const ipChecked = ip !== null && !o.allowedIps.some((entry) => ipInEntry(ip, entry));

    const rules: Array<[code: string, text: string]> = [];
    if (o.blockedEmails.some(sameAddress)) rules.push([REASON.blockedEmail, 'The email address is on the program’s blocked list.']);
    const blockedDomain = o.blockedEmailDomains.find((d) => domainMatches(domain, d));
    if (blockedDomain) rules.push([REASON.blockedEmailDomain, `The email domain is blocked (${blockedDomain}).`]);
    if (o.blockBurnerEmails && isDisposableEmail(email)) rules.push([REASON.burnerEmail, 'The email address is at a disposable (burner) email provider.']);
    if (ipChecked) {
      const blockedIp = o.blockedIps.find((entry) => ipInEntry(ip, entry));
      if (blockedIp) rules.push([REASON.blockedIp, `The IP address is blocked (${blockedIp}).`]);
      if (!candidate.existing) {
        const rate = await this.recentSignupsFrom(q, program.id, candidate, o.maxSignupsPerIp2Min, o.maxSignupsPerIp10Min);
        if (rate) rules.push([REASON.ipSignupRate, rate]);
        if (o.autoBlockHighRiskIps && (await this.highRiskFrom(q, program.id, candidate))) {
          rules.push([REASON.highRiskIp, 'Another participant who signed up from this IP address is flagged HIGH risk (autoBlockHighRiskIps).']);
        }
      }
    }
    const country = candidate.request?.country ?? null;
    if (country && !candidate.existing) {
      if (o.blockedCountries.includes(country)) rules.push([REASON.blockedCountry, `The sign-up came from a blocked country (${country}).`]);
      else if (o.allowedCountries.length && !o.allowedCountries.includes(country)) {
        rules.push([REASON.blockedCountry, `The sign-up came from ${country}, which is not on the program’s allowed countries.`]);
      }
    }

    const signals: Array<{ code: string; weight: number; text: string; referrer: boolean }> = [];
    const matches: string[] = [];
    if (referrer && referrer.id !== candidate.id) {
      const referrerCanon = canonicalEmail(referrer.email);
      const before = signals.length;
      if (referrerCanon === canon) {
        signals.push({ code: REASON.duplicateEmail, weight: 3, referrer: true, text: 'The email address reaches the same mailbox as the referrer’s (dots and +tags removed).' });
      } else {
        const name = personalName(canon);
        if (name && name === personalName(referrerCanon)) {
          signals.push({ code: REASON.similarEmail, weight: 1, referrer: true, text: 'The email address has the same name as the referrer’s at another email domain.' });
        }
      }
      if (instance && referrer.mobile_instance_id?.toLowerCase() === instance) {
        signals.push({ code: REASON.sameDevice, weight: 3, referrer: true, text: 'Signed up from the same app install (mobile instance id) as the referrer.' });
      }
      if (fingerprint && referrer.fingerprint === fingerprint) {
        signals.push({ code: REASON.sameFingerprint, weight: 2, referrer: true, text: 'Same browser fingerprint as the referrer.' });
      }
      if (ipChecked && canonicalIp(referrer.ip_address) === ip) {
        signals.push({ code: REASON.sameIp, weight: 1, referrer: true, text: 'Same IP address as the referrer.' });
      }
      if (signals.length > before) matches.push(referrer.id);
    }
    const others = async (column: 'mobile_instance_id' | 'fingerprint', value: string): Promise<string[]> => {
      const ids: string[] = await q('participants')
        .where({ program_id: program.id, [column]: value })
        .whereNot('id', candidate.id)
        .limit(MAX_MATCHES + 1)
        .pluck('id');
      return ids.filter((id) => id !== referrer?.id).slice(0, MAX_MATCHES);
    };
    if (instance) {
      const ids = await others('mobile_instance_id', instance);
      if (ids.length) {
        signals.push({ code: REASON.duplicateDevice, weight: 2, referrer: false, text: `The same app install (mobile instance id) already belongs to ${plural(ids.length, 'other participant', true)}.` });
        matches.push(...ids);
      }
    }
    if (fingerprint) {
      const ids = await others('fingerprint', fingerprint);
      if (ids.length) {
        signals.push({ code: REASON.duplicateFingerprint, weight: 1, referrer: false, text: `The same browser fingerprint already belongs to ${plural(ids.length, 'other participant', true)}.` });
        matches.push(...ids);
      }
    }

    if (candidate.request?.recaptchaUnverified) {
      signals.push({ code: REASON.recaptchaUnverified, weight: 1, referrer: false, text: 'reCAPTCHA is on, but the verification service could not be reached, so the sign-up was not checked for a bot.' });
    }

    const score = signals.reduce((sum, s) => sum + s.weight, 0);
    const riskLevel: RiskLevel = rules.length || score >= 3 ? 'HIGH' : score >= 1 ? 'MEDIUM' : 'LOW';
    const strongest = [...signals].sort((a, b) => b.weight - a.weight)[0];
    const reasonCode = rules.length
      ? rules[0]![0]
      : signals.filter((s) => s.referrer).length >= 2
        ? REASON.selfReferral
        : (strongest?.code ?? REASON.uniqueIdentity);
    const reasons = [...rules.map(([, text]) => text), ...signals.map((s) => s.text)];
    if (!reasons.length) reasons.push('No blocked email, domain or IP address, no sign of self-referral and no other participant with the same device.');
    if (gdprStrict(program)) reasons.push('GDPR mode: IP address, fingerprint and app install id are not stored, so they were compared only with values stored before the mode was switched on.');
    const referrerHighRisk = !!referrer && o.blockHighRiskReferrers && referrer.fraud_risk_level === 'HIGH';
    if (referrerHighRisk) reasons.push('The referrer is flagged HIGH risk (blockHighRiskReferrers).');
    const holdCredit = LEVEL_RANK[riskLevel] >= 1 || referrerHighRisk;
    if (holdCredit && referrer) reasons.push('The referral is not credited automatically; after review, credit it with referralStatus CREDIT_AWARDED or the trigger-referral call.');
    return { riskLevel, reasonCode, reasons, matches: mergeIds([], matches), ruleHit: rules.length > 0, signals: rules.length + signals.length, holdCredit };
  }

  /** True when a sign-up with this assessment is refused with 422 under the program's options. */
  blocks(program: Program, a: FraudAssessment): boolean {
    if (a.ruleHit) return true;
    const options = this.options(program);
    if (!options.autoBlockFraud || options.requireManualFraudApproval) return false;
    switch (options.fraud.strictness) {
      case 'STRICT':
        return LEVEL_RANK[a.riskLevel] >= 1;
      case 'LENIENT':
        return a.riskLevel === 'HIGH' && a.signals >= 2;
      default:
        return a.riskLevel === 'HIGH';
    }
  }

  /** `participants.hooks.screening`: the verdict on a sign-up (may block) or on a referral change (never blocks). */
  async screen(trx: Knex.Transaction, program: Program, candidate: ScreeningCandidate, referrer: ParticipantRow | null): Promise<ScreeningDecision> {
    const a = await this.assess(trx, program, candidate, referrer);
    const existing = candidate.existing;
    if (!existing && this.blocks(program, a)) {
      // Nothing is stored for a refused sign-up (no participant exists to hang it on); the log keeps the count.
      this.log.info('participant sign-up blocked by anti-fraud', { programId: program.id, riskLevel: a.riskLevel, reasonCode: a.reasonCode });
      return { block: true, reasonCode: a.reasonCode, holdCredit: false, columns: null, afterWrite: async () => {} };
    }
    // An owner's manual verdict stands: later automatic checks are recorded but do not replace it.
    const manual = existing?.fraud_reason_code === REASON.manualUpdate;
    const fraud_matches = encodeIds(mergeIds(parseJson<string[]>(existing?.fraud_matches, []), a.matches));
    return {
      block: false,
      reasonCode: a.reasonCode,
      holdCredit: manual ? existing!.fraud_risk_level !== 'LOW' : a.holdCredit,
      columns: manual ? { fraud_matches } : { fraud_risk_level: a.riskLevel, fraud_reason_code: a.reasonCode, fraud_matches },
      afterWrite: (t, p, row) =>
        this.record(t, p, row, {
          riskLevel: a.riskLevel,
          reasonCode: a.reasonCode,
          reasons: a.reasons,
          matches: a.matches,
          source: 'AUTOMATIC',
          context: existing ? 'REFERRAL_CHANGE' : 'SIGNUP',
          actor: null,
          applied: !manual,
          previous: existing ? { level: existing.fraud_risk_level, code: existing.fraud_reason_code } : null,
        }),
    };
  }

  /** `participants.hooks.fraudOverride`: P5 `fraudRiskLevel`, the owner's verdict (`MANUAL_UPDATE`). */
  async override(_trx: Knex.Transaction, _program: Program, row: ParticipantRow, level: RiskLevel, actor: string | null): Promise<ScreeningDecision> {
    const text = row.fraud_risk_level === level ? `Set to ${level} by the program owner (unchanged level).` : `Changed from ${row.fraud_risk_level} to ${level} by the program owner.`;
    return {
      block: false,
      reasonCode: REASON.manualUpdate,
      holdCredit: false,
      columns: { fraud_risk_level: level, fraud_reason_code: REASON.manualUpdate },
      afterWrite: (t, p, fresh) =>
        this.record(t, p, fresh, {
          riskLevel: level,
          reasonCode: REASON.manualUpdate,
          reasons: [text],
          matches: parseJson<string[]>(row.fraud_matches, []),
          source: 'MANUAL',
          context: 'OWNER_UPDATE',
          actor,
          applied: true,
          previous: { level: row.fraud_risk_level, code: row.fraud_reason_code },
        }),
    };
  }

  /** `participants.hooks.fraudMatchesOf`: `{id, email}` of each row's matches still in the program, in one query. */
  async matchesOf(q: Q, rows: ParticipantRow[]): Promise<Map<string, Array<{ id: string; email: string }>>> {
    const lists = new Map<string, string[]>();
    const all = new Set<string>();
    for (const r of rows) {
      const ids = parseJson<string[]>(r.fraud_matches, []);
      if (!ids.length) continue;
      lists.set(r.id, ids);
      for (const id of ids) all.add(id);
    }
    const out = new Map<string, Array<{ id: string; email: string }>>();
    if (!all.size) return out;
    const found: Array<{ id: string; email: string; program_id: string }> = await q('participants').whereIn('id', [...all]).select('id', 'email', 'program_id');
    const byId = new Map(found.filter((f) => f.program_id === rows[0]!.program_id).map((f) => [f.id, f.email]));
    for (const [id, ids] of lists) out.set(id, ids.filter((m) => byId.has(m)).map((m) => ({ id: m, email: byId.get(m)! })));
    return out;
  }

  /** A participant's decisions, newest first (what the owner reads to see why). */
  async decisions(programId: string, participantId: string, q: Q = this.db.knex): Promise<FraudDecision[]> {
    const rows = await q('fraud_decisions')
      .where({ program_id: programId, participant_id: participantId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]);
    return rows.map((r: any) => ({
      id: r.id,
      participantId: r.participant_id,
      riskLevel: r.risk_level,
      previousRiskLevel: r.previous_risk_level ?? null,
      reasonCode: r.reason_code,
      reasons: parseJson<string[]>(r.reasons, []),
      matches: parseJson<string[]>(r.matches, []),
      source: r.source,
      context: r.context,
      actor: r.actor ?? null,
      applied: !!r.applied,
      createdAt: Number(r.created_at),
    }));
  }

  /**
   * Stores a decision; when it changed the participant's level or reason, also an activity row and
   * `PARTICIPANT_FRAUD_STATUS_UPDATED`. A sign-up counts as a change when it is flagged (not LOW).
   */
  private async record(trx: Knex.Transaction, program: Program, row: ParticipantRow, d: Pending): Promise<void> {
    const now = this.clock.now();
    await trx('fraud_decisions').insert({
      id: newId(),
      program_id: program.id,
      participant_id: row.id,
      risk_level: d.riskLevel,
      previous_risk_level: d.previous?.level ?? null,
      reason_code: d.reasonCode,
      reasons: JSON.stringify(d.reasons),
      matches: JSON.stringify(d.matches),
      source: d.source,
      context: d.context,
      actor: d.actor,
      applied: d.applied,
      created_at: now,
    });
    if (d.source === 'AUTOMATIC' && d.matches.length) await this.linkMatches(trx, program.id, row.id, d.matches);

    // Only the decision the row now shows speaks (an override in the same request silences screening).
    const shown = d.applied && row.fraud_risk_level === d.riskLevel && row.fraud_reason_code === d.reasonCode;
    const changed = d.previous ? d.previous.level !== d.riskLevel || d.previous.code !== d.reasonCode : d.riskLevel !== 'LOW';
    if (!shown || !changed) return;
    const text =
      d.source === 'MANUAL'
        ? `Fraud risk set to ${d.riskLevel} by the program owner${d.previous ? ` (was ${d.previous.level})` : ''}.`
        : d.context === 'SIGNUP'
          ? `Flagged ${d.riskLevel} fraud risk at sign-up (${d.reasonCode}): ${d.reasons.join(' ')}`
          : `Fraud risk ${d.previous?.level ?? 'LOW'} → ${d.riskLevel} after the referrer changed (${d.reasonCode}): ${d.reasons.join(' ')}`;
    await this.activity.record(trx, {
      programId: program.id,
      participantId: row.id,
      type: 'FRAUD',
      action: d.source === 'MANUAL' ? 'fraud.manual' : 'fraud.flagged',
      text,
      data: { riskLevel: d.riskLevel, previousRiskLevel: d.previous?.level ?? null, reasonCode: d.reasonCode, reasons: d.reasons, matches: d.matches, source: d.source },
    });
    const [participant] = await this.participants.forEvents(trx, program, [row]);
    const campaign = await this.programs.toCampaign(program, trx);
    await this.webhooks.emit(trx, program.id, 'PARTICIPANT_FRAUD_STATUS_UPDATED', { campaign, participant });
  }

  /** Lists `participantId` on the participants it matched too, so both sides show the match. */
  private async linkMatches(trx: Knex.Transaction, programId: string, participantId: string, matches: string[]): Promise<void> {
    const rows: Array<{ id: string; fraud_matches: string | null }> = await trx('participants')
      .whereIn('id', matches.filter((m) => m !== participantId))
      .where('program_id', programId)
      .select('id', 'fraud_matches');
    for (const r of rows) {
      const ids = parseJson<string[]>(r.fraud_matches, []);
      if (ids.includes(participantId) || ids.length >= MAX_MATCHES) continue;
      await trx('participants').where({ id: r.id }).update({ fraud_matches: encodeIds([...ids, participantId]) });
    }
  }

  /** Why the candidate's IP has used up its sign-up budget (options.fraud.maxSignupsPerIp*), or null. */
  /** True when a participant of the program who signed up from the candidate's IP address is flagged HIGH. */
  private async highRiskFrom(q: Q, programId: string, candidate: ScreeningCandidate): Promise<boolean> {
    const hit = await q('participants').where({ program_id: programId, fraud_risk_level: 'HIGH' }).whereIn('ip_address', storedForms(candidate.ipAddress!)).whereNot('id', candidate.id).first('id');
    return !!hit;
  }

  private async recentSignupsFrom(q: Q, programId: string, candidate: ScreeningCandidate, max2: number, max10: number): Promise<string | null> {
    const ips = storedForms(candidate.ipAddress!);
    const now = this.clock.now();
    const count = async (ms: number) =>
      Number(
        (await q('participants').where('program_id', programId).whereIn('ip_address', ips).where('created_at', '>', now - ms).whereNot('id', candidate.id).count({ n: '*' }).first())?.n ?? 0,
      );
    const in2 = await count(2 * 60_000);
    if (in2 >= max2) return `${plural(in2, 'participant')} signed up from this IP address in the last 2 minutes (limit ${max2}).`;
    const in10 = await count(10 * 60_000);
    if (in10 >= max10) return `${plural(in10, 'participant')} signed up from this IP address in the last 10 minutes (limit ${max10}).`;
    return null;
  }
}

/** Plugs the fraud engine into the participants core: screening, the P5 override and `allMatchingFraudsters`. */
export function registerFraudHooks(participants: Participants, fraud: Fraud): void {
  participants.hooks.screening.push((trx, program, candidate, referrer) => fraud.screen(trx, program, candidate, referrer));
  participants.hooks.fraudOverride = (trx, program, row, level, actor) => fraud.override(trx, program, row, level, actor);
  participants.hooks.fraudMatchesOf = (q, rows) => fraud.matchesOf(q, rows);
}
