/** The 13 REST API key scopes of the interface specification, in the order the spec lists them. */
export const SCOPES = [
  'team:read',
  'team:write',
  'api_key:rotate',
  'program:read',
  'program:write',
  'participant:read',
  'participant:write',
  'participant:delete',
  'reward:read',
  'reward:write',
  'reward:delete',
  'reward:fulfill',
  'analytics:read',
] as const;

/** One REST API key scope. */
export type Scope = (typeof SCOPES)[number];

/** True when `value` names one of the 13 scopes. */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** What each scope grants, as the spec words it (used in docs, OpenAPI and the owner pages). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'team:read': 'Read team name and verification state.',
  'team:write': 'Update team name, request team verification, resend the owner verification email.',
  'api_key:rotate': 'Rotate the key used for the request.',
  'program:read': 'Read programs, program resources, reward configuration, emails, installation, options, design, webhooks.',
  'program:write': 'Create, clone, update programs; manage reward configuration, program resources, webhooks; issue upload tickets.',
  'participant:read': 'Read participants, referrals, leaderboards, activity, affiliate applications and invites.',
  'participant:write': 'Create and update participants, trigger or cancel referrals, send emails and invites, review affiliate applications and invites.',
  'participant:delete': 'Delete participants singly or in bulk.',
  'reward:read': 'Read issued rewards, commissions, payouts.',
  'reward:write': 'Record or refund sales; approve commissions or rewards without fulfilling.',
  'reward:delete': 'Delete issued rewards or commissions.',
  'reward:fulfill': 'Fulfill an issued reward.',
  'analytics:read': 'Read aggregate program and participant analytics.',
};
