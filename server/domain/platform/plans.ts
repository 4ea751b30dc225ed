import { PaidPlanRequiredError, PaymentMethodRequiredError, UsageLimitError } from '../../errors.ts';

/** Plan names a team can be on (`refloop team plan TEAM --plan NAME`). */
export const PLAN_NAMES = ['TRIAL', 'FREE', 'STARTER', 'BUSINESS', 'ELITE', 'UNLIMITED'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** Limits of one plan; null means unlimited. */
export interface PlanLimits {
  paid: boolean;
  programs: number | null;
  participants: number | null;
}

// Our numbers (docs/decisions.md): the trial is the Business plan for 14 days.
const LIMITS: Record<PlanName, PlanLimits> = {
  TRIAL: { paid: true, programs: 5, participants: 50_000 },
  FREE: { paid: false, programs: 1, participants: 100 },
  STARTER: { paid: true, programs: 1, participants: 5_000 },
  BUSINESS: { paid: true, programs: 5, participants: 50_000 },
  ELITE: { paid: true, programs: null, participants: null },
  UNLIMITED: { paid: true, programs: null, participants: null },
};

/** Trial length: 14 days. */
export const TRIAL_MS = 14 * 24 * 3600 * 1000;

/** The billing facts of a team that the gates read. */
export interface TeamBilling {
  plan: string;
  hasPaymentMethod: boolean;
  trialEndsAt: number | null;
  /** The team's verification state when the request's credential read it (an API key record joins `teams`), so a write need not read it again. */
  verificationStatus?: string;
}

/** The plan in force: with BILLING=off every team is unlimited with a payment method on file. */
export function effectivePlan(billing: boolean, team: TeamBilling, now: number): { name: PlanName; limits: PlanLimits; hasPaymentMethod: boolean } {
  if (!billing) return { name: 'UNLIMITED', limits: LIMITS.UNLIMITED, hasPaymentMethod: true };
  let name = (PLAN_NAMES as readonly string[]).includes(team.plan) ? (team.plan as PlanName) : 'FREE';
  if (name === 'TRIAL' && (team.trialEndsAt == null || now >= team.trialEndsAt)) name = 'FREE';
  return { name, limits: LIMITS[name], hasPaymentMethod: team.hasPaymentMethod };
}

/**
 * The REST gate for a program of the given type: referral programs need a paid plan (403),
 * affiliate programs need a payment method on file (402). Every program endpoint calls this.
 */
export function assertRestAccess(billing: boolean, team: TeamBilling, programType: 'REFERRAL' | 'AFFILIATE', now: number): void {
  const plan = effectivePlan(billing, team, now);
  if (programType === 'REFERRAL' && !plan.limits.paid) throw new PaidPlanRequiredError();
  if (programType === 'AFFILIATE' && !plan.hasPaymentMethod) throw new PaymentMethodRequiredError();
}

/** 402 when creating one more program would pass the plan's program limit. */
export function assertProgramCapacity(billing: boolean, team: TeamBilling, currentPrograms: number, now: number): void {
  const { limits, name } = effectivePlan(billing, team, now);
  if (limits.programs != null && currentPrograms >= limits.programs) {
    throw new UsageLimitError(`The ${name} plan allows ${limits.programs} program(s). Upgrade to add more.`);
  }
}

/** 402 when adding one more participant would pass the plan's participant limit. */
export function assertParticipantCapacity(billing: boolean, team: TeamBilling, currentParticipants: number, now: number): void {
  const { limits, name } = effectivePlan(billing, team, now);
  if (limits.participants != null && currentParticipants >= limits.participants) {
    throw new UsageLimitError(`The ${name} plan allows ${limits.participants} participants. Upgrade to add more.`);
  }
}
