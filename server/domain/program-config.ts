import type { z } from 'zod';
import type { programGoal, programType } from '../../shared/schemas/campaign.ts';

type ProgramType = z.infer<typeof programType>;
type Goal = z.infer<typeof programGoal>;

/** The four configuration documents every program carries. */
export interface ProgramDocuments {
  design: Record<string, unknown>;
  emails: Record<string, unknown>;
  options: Record<string, unknown>;
  installation: Record<string, unknown>;
}

/** Complete starting documents for a new program of this type and goal. */
export function defaultDocuments(type: ProgramType, goal: Goal | null): ProgramDocuments {
  const businessGoals: Goal[] = ['CUSTOMERS', 'USERS', 'B2B_SAAS_SELF_SERVICE', 'B2B_SAAS_ENTERPRISE', 'HEALTHCARE_PROVIDERS'];
  return {
    design: {
      window: { navigationMode: 'TABS' },
      share: { linkedin: { isVisible: goal ? businessGoals.includes(goal) : true } },
    },
    emails: {},
    options: { referralCookieWindowDays: 90, attributionModel: 'LAST_CLICK', referralCreditWindowDays: null },
    installation: { referralTrigger: type === 'REFERRAL' ? 'ON_SIGNUP' : 'CUSTOM', allowedDomains: [], mobile: { isEnabled: false, publicKey: null } },
  };
}
