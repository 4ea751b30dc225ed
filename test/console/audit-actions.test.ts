import { describe, expect, it } from 'vitest';
import { operations } from '../../server/http/routes.ts';
import { ACCESS_EVENTS, SYSTEM_ACTIONS } from '../../server/domain/platform/audit.ts';
import { en } from '../../console/i18n/index.ts';
import { AUDIT_ACTION_GROUPS, actionLabel, agentLabel, resourceLabel } from '../../console/audit-actions.ts';

// The audit log page names every action a person can meet in it (issue #35): each write operation
// of the routes table, each audited read (the exports), each access event and each system action.

const audited = operations.filter((op) => op.method !== 'GET' || op.audit?.reads);
const grouped = Object.values(AUDIT_ACTION_GROUPS).flat() as string[];

describe('the audit log page’s vocabulary', () => {
  it('has a label and a filter group for every audited operation and access event, and names no action that does not exist', () => {
    const actions = [...audited.map((op) => op.id), ...ACCESS_EVENTS, 'audit.prune', ...SYSTEM_ACTIONS];
    const unlabelled = actions.filter((a) => !(`audit.op.${a}` in en));
    expect(unlabelled).toEqual([]);
    expect(actions.filter((a) => !grouped.includes(a))).toEqual([]);
    expect(grouped.filter((a) => !actions.includes(a))).toEqual([]);
    expect(new Set(grouped).size).toBe(grouped.length);
    const labels = Object.keys(en).filter((k) => k.startsWith('audit.op.')).map((k) => k.slice('audit.op.'.length));
    expect(labels.filter((a) => !actions.includes(a))).toEqual([]);
  });

  it('has a label for every resource type an operation records', () => {
    const types = new Set(audited.map((op) => op.audit?.resource ?? op.name.split('.')[0]!));
    types.add('owner');
    types.add('audit_log');
    // The resource types of SYSTEM entries (jobs and billing webhooks) beyond the operations' own.
    for (const type of ['participants', 'rewards', 'commissions', 'payouts', 'webhooks', 'billingEvents', 'team', 'transactions', 'subscriptions']) types.add(type);
    expect([...types].filter((type) => !(`audit.res.${type}` in en))).toEqual([]);
  });

  it('shows a code it has no label for as the code itself, and user agents as client and system', () => {
    expect(actionLabel('C4')).toBe('Changed a program');
    expect(actionLabel('ZZ9')).toBe('ZZ9');
    expect(resourceLabel('campaigns')).toBe('Program');
    expect(resourceLabel('somethingNew')).toBe('somethingNew');
    expect(agentLabel('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36')).toBe('Chrome 156 on Linux');
    expect(agentLabel('curl/8.5.0')).toBe('curl 8.5');
    expect(agentLabel(null)).toBeNull();
  });
});
