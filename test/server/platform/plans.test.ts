import { describe, expect, it } from 'vitest';
import { assertProgramCapacity, assertRestAccess, assertParticipantCapacity, effectivePlan, TRIAL_MS } from '../../../server/domain/platform/plans.ts';

const now = Date.UTC(2026, 5, 1);
const trial = { plan: 'TRIAL', hasPaymentMethod: false, trialEndsAt: now + TRIAL_MS };

describe('plans with BILLING=off', () => {
  it('gives every team an unlimited paid plan with a payment method on file', () => {
    const free = { plan: 'FREE', hasPaymentMethod: false, trialEndsAt: null };
    expect(effectivePlan(false, free, now)).toMatchObject({ name: 'UNLIMITED', hasPaymentMethod: true, limits: { paid: true, programs: null } });
    expect(() => assertRestAccess(false, free, 'REFERRAL', now)).not.toThrow();
    expect(() => assertRestAccess(false, free, 'AFFILIATE', now)).not.toThrow();
    expect(() => assertProgramCapacity(false, free, 10_000, now)).not.toThrow();
  });
});

describe('plans with BILLING=on', () => {
  it('counts the 14-day trial as paid, but affiliate REST use still needs a payment method (402)', () => {
    expect(() => assertRestAccess(true, trial, 'REFERRAL', now)).not.toThrow();
    expect(() => assertRestAccess(true, trial, 'AFFILIATE', now)).toThrow(expect.objectContaining({ status: 402, code: 'PAYMENT_METHOD_REQUIRED_ERROR' }));
    expect(() => assertRestAccess(true, { ...trial, hasPaymentMethod: true }, 'AFFILIATE', now)).not.toThrow();
  });

  it('ends the trial after 14 days: referral REST use then needs a paid plan (403)', () => {
    const after = now + TRIAL_MS;
    expect(effectivePlan(true, trial, after).name).toBe('FREE');
    expect(() => assertRestAccess(true, trial, 'REFERRAL', after)).toThrow(expect.objectContaining({ status: 403, code: 'PAID_PLAN_REQUIRED_ERROR' }));
  });

  it('enforces program and participant limits with 402 usage limit', () => {
    const starter = { plan: 'STARTER', hasPaymentMethod: true, trialEndsAt: null };
    expect(() => assertProgramCapacity(true, starter, 0, now)).not.toThrow();
    expect(() => assertProgramCapacity(true, starter, 1, now)).toThrow(expect.objectContaining({ status: 402, code: 'USAGE_LIMIT_ERROR' }));
    expect(() => assertParticipantCapacity(true, starter, 5_000, now)).toThrow(expect.objectContaining({ status: 402 }));
    expect(() => assertProgramCapacity(true, { plan: 'ELITE', hasPaymentMethod: true, trialEndsAt: null }, 1_000, now)).not.toThrow();
  });
});
