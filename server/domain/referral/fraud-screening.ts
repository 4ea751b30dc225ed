// Fraud screening: the decision function that weighs a candidate's owner-rule hits and signals
// (against the referrer and the program's other participants) into a risk level, reasons and matches.
import type { Clock } from '../../clock.ts';
import type { CampaignOptions } from '../../../shared/schemas/program-config-options.ts';
import { isDisposableEmail } from '../platform/email-policy.ts';
import type { Program } from '../programs/programs.ts';
import { emailKey, gdprStrict, type ParticipantRow, type Q, type ScreeningCandidate } from '../participants/model.ts';
import { canonicalEmail, canonicalIp, domainMatches, ipInEntry, personalName, storedForms } from './fraud-addresses.ts';

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

export const LEVEL_RANK: Record<RiskLevel, number> = { LOW: 0, MEDIUM: 1, HIGH: 2 };

export function mergeIds(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])].slice(0, MAX_MATCHES);
}

function plural(n: number, word: string, capped = false): string {
  return `${capped && n >= MAX_MATCHES ? `${MAX_MATCHES} or more` : n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The decision function: owner rules and weighed signals for `candidate`, compared with `referrer`
 * when there is one and with the program's other participants. Reads only; nothing is written.
 * Under `enforceGdprCompliance` nothing of the kind is stored, so the in-request IP, fingerprint
 * and app install id meet only values stored before the mode was switched on.
 */
export async function assessCandidate(q: Q, clock: Clock, options: CampaignOptions, program: Program, candidate: ScreeningCandidate, referrer: ParticipantRow | null = null): Promise<FraudAssessment> {
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
      const rate = await recentSignupsFrom(q, clock, program.id, candidate, o.maxSignupsPerIp2Min, o.maxSignupsPerIp10Min);
      if (rate) rules.push([REASON.ipSignupRate, rate]);
      if (o.autoBlockHighRiskIps && (await highRiskFrom(q, program.id, candidate))) {
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

/** True when a participant of the program who signed up from the candidate's IP address is flagged HIGH. */
async function highRiskFrom(q: Q, programId: string, candidate: ScreeningCandidate): Promise<boolean> {
  const hit = await q('participants').where({ program_id: programId, fraud_risk_level: 'HIGH' }).whereIn('ip_address', storedForms(candidate.ipAddress!)).whereNot('id', candidate.id).first('id');
  return !!hit;
}

/** Why the candidate's IP has used up its sign-up budget (options.fraud.maxSignupsPerIp*), or null. */
async function recentSignupsFrom(q: Q, clock: Clock, programId: string, candidate: ScreeningCandidate, max2: number, max10: number): Promise<string | null> {
  const ips = storedForms(candidate.ipAddress!);
  const now = clock.now();
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
