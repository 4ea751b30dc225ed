import type { Program } from '../programs/programs.ts';
import { completeDocument } from '../programs/program-config.ts';
import { isDisposableEmail } from '../platform/email-policy.ts';
import { emailKey, type ParticipantRow } from '../participants/model.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldError } from '../../../shared/errors.ts';
import { isCountryCode, type AffiliateApplication, type ApplicationQuestion } from '../../../shared/schemas/affiliate.ts';

// The affiliate program's enrollment options, the application form's answer checks and the first
// risk assessment of an application (server/domain/affiliate/affiliate-applications.ts uses them).

/** The enrollment options of an affiliate program, defaults filled. */
export interface EnrollmentOptions {
  mode: 'OPEN_ENROLLMENT' | 'MANUAL_REVIEW' | 'AUTO_APPROVE';
  policy: 'AFTER_COOLDOWN' | 'DISABLED';
  cooldownDays: number;
  reviewEstimate: number | null;
  questions: ApplicationQuestion[];
  termsUrl: string | null;
  fraud: { blockedEmails: string[]; blockedEmailDomains: string[]; blockBurnerEmails: boolean };
}

/** Reads the application mode, reapplication policy and form of a program. */
export function enrollmentOptions(program: Program): EnrollmentOptions {
  const o = completeDocument('options', program, program.documents.options) as any;
  return {
    mode: o.affiliateApplicationMode ?? 'OPEN_ENROLLMENT',
    policy: o.affiliateReapplicationPolicy ?? 'AFTER_COOLDOWN',
    cooldownDays: o.affiliateReapplicationCooldownDays ?? 30,
    reviewEstimate: o.affiliateApplicationReviewEstimateBusinessDays ?? null,
    questions: o.affiliateApplicationForm?.questions ?? [],
    termsUrl: o.affiliateApplicationForm?.termsUrl ?? null,
    fraud: o.fraud,
  };
}

/** Validates submitted answers against the saved form; the stored Answer[] with labels as they read now. */
export function checkAnswers(questions: ApplicationQuestion[], given: Record<string, string | number | boolean>): AffiliateApplication['answers'] {
  const errors: FieldError[] = [];
  const bad = (fieldId: string, message: string, code = 'INVALID') => errors.push({ field: `answers.${fieldId}`, code, message });
  const known = new Set(questions.map((q) => q.fieldId));
  for (const id of Object.keys(given)) if (!known.has(id)) bad(id, 'Not a question of this application form.', 'UNKNOWN_FIELD');
  const answers: AffiliateApplication['answers'] = [];
  for (const q of questions) {
    let v = given[q.fieldId];
    if (typeof v === 'string') v = v.trim();
    const empty = v === undefined || v === '' || (q.type === 'checkbox' && v === false);
    if (empty) {
      if (q.isRequired) bad(q.fieldId, q.type === 'checkbox' ? 'This box must be checked.' : 'An answer is required.', 'REQUIRED');
      continue;
    }
    switch (q.type) {
      case 'checkbox':
        if (typeof v !== 'boolean') bad(q.fieldId, 'Must be true or false.', 'INVALID_TYPE');
        break;
      case 'number':
        if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) v = Number(v);
        if (typeof v !== 'number' || !Number.isFinite(v)) bad(q.fieldId, 'Must be a number.', 'INVALID_TYPE');
        break;
      case 'url':
        if (typeof v !== 'string' || v.length > 2048 || !/^https?:\/\/[^\s/]+\.[^\s]+$/i.test(v) || !URL.canParse(v)) bad(q.fieldId, 'Must be an http(s) URL.', 'INVALID_URL');
        break;
      case 'country':
        if (typeof v !== 'string' || !isCountryCode(v.toUpperCase())) bad(q.fieldId, 'Must be an ISO 3166-1 alpha-2 country code.', 'INVALID_COUNTRY');
        else v = v.toUpperCase();
        break;
      case 'dropdown':
      case 'radio':
        if (typeof v !== 'string' || !(q.options ?? []).includes(v)) bad(q.fieldId, `Must be one of: ${(q.options ?? []).join(', ')}.`, 'INVALID_VALUE');
        break;
      default:
        if (typeof v !== 'string') bad(q.fieldId, 'Must be text.', 'INVALID_TYPE');
        else if (v.length > (q.type === 'textarea' ? 5000 : 500)) bad(q.fieldId, `At most ${q.type === 'textarea' ? 5000 : 500} characters.`, 'TOO_LONG');
    }
    answers.push({ fieldId: q.fieldId, label: q.label, type: q.type, value: v as string | number | boolean });
  }
  if (errors.length) throw new ValidationError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  return answers;
}

/** A first risk assessment: blocked or burner addresses are HIGH, a flagged participant keeps its level. */
export function riskOf(o: EnrollmentOptions, email: string, existing: ParticipantRow | undefined): 'LOW' | 'MEDIUM' | 'HIGH' {
  const key = emailKey(email);
  const domain = key.slice(key.lastIndexOf('@') + 1);
  if (o.fraud.blockedEmails.includes(key)) return 'HIGH';
  if (o.fraud.blockedEmailDomains.some((d) => domain === d || domain.endsWith(`.${d}`))) return 'HIGH';
  if (o.fraud.blockBurnerEmails && isDisposableEmail(key)) return 'HIGH';
  if (existing && existing.fraud_risk_level !== 'LOW') return existing.fraud_risk_level;
  return 'LOW';
}
