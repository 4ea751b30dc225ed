// A referral program's rewards queue (PR5): rewards by state, newest first, in pages of 50; approve
// (PR2), fulfil (PR3) and delete (PR4) one reward or the selected ones (each sent on its own, each
// result listed), with the rules the API enforces (406) said in words beside the buttons.
import { useEffect, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, Async, ErrorSummary, MoreButton, PageTitle, problem, usePages } from '../ui.tsx';
import { t, when, type MessageKey } from '../i18n/index.ts';
import type { ProgramReward } from '../../shared/schemas/reward.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import { CountedStates, EmptyList, noneAtAll, StateTabs, type Counts } from '../state-counts.tsx';
import { ButtonLink, EmptyState } from '../components.tsx';

const STATES = ['AWAITING_APPROVAL', 'APPROVED', 'FULFILLED', 'ALL'] as const;
type State = (typeof STATES)[number];
type Action = 'approve' | 'approveFulfil' | 'fulfil' | 'delete';
type Page = { rewards: ProgramReward[]; nextId: string | null };
type Result = { id: string; line: string; ok: boolean };

/** The PR2/PR3/PR4 call of `action` on reward `id`. */
function send(programId: string, id: string, action: Action): Promise<unknown> {
  const base = `/campaign/${encodeURIComponent(programId)}/reward/${encodeURIComponent(id)}`;
  if (action === 'delete') return api('DELETE', base, {});
  if (action === 'fulfil') return api('POST', `${base}/fulfill`, {});
  return api('POST', `${base}/approve`, action === 'approveFulfil' ? { fulfill: true } : {});
}

const stateOf = (r: ProgramReward): Exclude<State, 'ALL'> => (r.isFulfilled ? 'FULFILLED' : r.approved ? 'APPROVED' : 'AWAITING_APPROVAL');

function sideOf(r: ProgramReward): MessageKey {
  if (!r.referrerId && !r.referredId) return 'rewards.side.prize';
  return r.isReferrer ? 'rewards.side.referrer' : 'rewards.side.friend';
}

/** The buttons a reward's state allows, and the rule that rules out the others. */
function RowActions({ r, label, run, busy }: { r: ProgramReward; label: string; run: (ids: string[], a: Action) => void; busy: boolean }) {
  const vars = { reward: label, email: r.participantEmail };
  const state = stateOf(r);
  const button = (a: Action, cls = 'secondary') => (
    <button type="button" class={`small ${cls}`} disabled={busy} aria-label={t(`rewards.${a}Label` as MessageKey, vars)} onClick={() => run([r.id], a)}>
      {t(`rewards.${a}` as MessageKey)}
    </button>
  );
  return (
    <div class="row-actions">
      <div class="buttons">
        {state === 'AWAITING_APPROVAL' && can('reward:write') && button('approve', '')}
        {state === 'AWAITING_APPROVAL' && can('reward:write') && can('reward:fulfill') && button('approveFulfil')}
        {state === 'APPROVED' && can('reward:fulfill') && button('fulfil', '')}
        {state === 'AWAITING_APPROVAL' && can('reward:delete') && button('delete', 'danger')}
      </div>
      <p class="hint">{t(state === 'AWAITING_APPROVAL' ? 'rewards.rule.awaiting' : state === 'APPROVED' ? 'rewards.rule.approved' : 'rewards.rule.fulfilled')}</p>
    </div>
  );
}

/** A program without any reward yet: how rewards arrive, and where to set them up (for a role that may) or see who joined. */
function NoRewards({ c }: { c: Campaign }) {
  const program = `/console/programs/${encodeURIComponent(c.id)}`;
  return (
    <EmptyState
      title={t('rewards.empty.title')}
      text={t('rewards.empty.text')}
      action={
        <>
          {can('program:write') && <ButtonLink href={`${program}/settings/rewards`}>{t('rewards.empty.settings')}</ButtonLink>}
          <ButtonLink kind="secondary" href={`${program}/participants`}>
            {t('empty.participants')}
          </ButtonLink>
        </>
      }
    />
  );
}

function Queue({ c, state, counts, changed }: { c: Campaign; state: State; counts: Counts | null; changed: () => void }) {
  const base = `/campaign/${encodeURIComponent(c.id)}`;
  const { pages, setPages, error, load } = usePages<Page>((nextId) => `${base}/rewards${query({ state, limit: 50, nextId })}`);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<Result[]>([]);
  const titles = new Map(c.rewards.map((r) => [r.id, r.title || r.description || r.type]));
  const label = (r: ProgramReward) => titles.get(r.rewardId) ?? r.rewardId;

  useEffect(() => {
    setPages([]);
    setSelected(new Set());
    void load(null, true);
  }, [c.id, state]);

  const rows = pages.flatMap((p) => p.rewards);
  const next = pages.at(-1)?.nextId ?? null;

  /** Sends `action` for each reward in turn (never in parallel: each answer is its own result). */
  const run = async (ids: string[], action: Action) => {
    if (action === 'delete' && !confirm(t('rewards.confirmDelete', { count: ids.length }))) return;
    setBusy(true);
    const out: Result[] = [];
    for (const id of ids) {
      const r = rows.find((x) => x.id === id)!;
      let result: string;
      let ok = true;
      try {
        await send(c.id, id, action);
        result = t(`rewards.result.${action}` as MessageKey);
      } catch (e) {
        ok = false;
        result = t('rewards.result.failed', { message: problem(e) });
      }
      out.push({ id, ok, line: t('rewards.resultLine', { email: r.participantEmail, reward: label(r), result }) });
    }
    setResults(out);
    setSelected(new Set());
    setBusy(false);
    announce(t('rewards.done', { count: out.filter((o) => o.ok).length, total: out.length }));
    await load(null, true);
    if (out.some((o) => o.ok)) changed();
  };

  const toggle = (id: string, on: boolean) => {
    const s = new Set(selected);
    if (on) s.add(id);
    else s.delete(id);
    setSelected(s);
  };
  const allOn = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const canAct = can('reward:write') || can('reward:fulfill') || can('reward:delete');

  return (
    <>
      <ErrorSummary error={error} />
      {results.length > 0 && (
        <section aria-labelledby="results-title" class="card results">
          <h2 id="results-title">{t('rewards.results')}</h2>
          <ul>
            {results.map((r) => (
              <li key={r.id} class={r.ok ? 'ok' : 'failed'}>
                {r.line}
              </li>
            ))}
          </ul>
        </section>
      )}
      {canAct && rows.length > 0 && (
        <section aria-labelledby="bulk-title" class="card bulk">
          <h2 id="bulk-title">{t('rewards.bulk')}</h2>
          <div class="choice">
            <input id="select-all" type="checkbox" checked={allOn} onChange={(e) => setSelected(e.currentTarget.checked ? new Set(rows.map((r) => r.id)) : new Set())} />
            <label for="select-all">{t('rewards.selectAll')}</label>
          </div>
          <p aria-live="polite">{t('rewards.selected', { count: selected.size })}</p>
          <p class="hint">{t('rewards.bulkHint')}</p>
          <div class="buttons">
            {can('reward:write') && (
              <button type="button" disabled={busy || !selected.size} onClick={() => run([...selected], 'approve')}>
                {t('rewards.bulkApprove')}
              </button>
            )}
            {can('reward:fulfill') && (
              <button type="button" class="secondary" disabled={busy || !selected.size} onClick={() => run([...selected], 'fulfil')}>
                {t('rewards.bulkFulfil')}
              </button>
            )}
            {can('reward:delete') && (
              <button type="button" class="danger" disabled={busy || !selected.size} onClick={() => run([...selected], 'delete')}>
                {t('rewards.bulkDelete')}
              </button>
            )}
          </div>
        </section>
      )}
      {!canAct && <p class="hint">{t('rewards.readOnly')}</p>}
      {pages.length > 0 && !rows.length && (
        <EmptyList filtered={state !== 'ALL'} counts={counts} none={t('rewards.none')} allHref={`/console/programs/${encodeURIComponent(c.id)}/rewards?state=ALL`}>
          <NoRewards c={c} />
        </EmptyList>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="rewards">
            <caption>
              {t('rewards.table', { state: t(`rewards.state.${state}`) })} ({t('rewards.count', { count: rows.length })})
            </caption>
            <thead>
              <tr>
                {canAct && <th scope="col">{t('rewards.col.select')}</th>}
                <th scope="col">{t('rewards.col.participant')}</th>
                <th scope="col">{t('rewards.col.reward')}</th>
                <th scope="col">{t('rewards.col.side')}</th>
                <th scope="col">{t('rewards.col.issued')}</th>
                <th scope="col">{t('rewards.col.state')}</th>
                {canAct && <th scope="col">{t('rewards.col.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  {canAct && (
                    <td>
                      <input type="checkbox" aria-label={t('rewards.selectRow', { reward: label(r), email: r.participantEmail })} checked={selected.has(r.id)} onChange={(e) => toggle(r.id, e.currentTarget.checked)} />
                    </td>
                  )}
                  <th scope="row">{r.participantEmail}</th>
                  <td data-label={t('rewards.col.reward')}>{label(r)}</td>
                  <td data-label={t('rewards.col.side')}>{t(sideOf(r))}</td>
                  <td data-label={t('rewards.col.issued')}>{when(r.createdAt)}</td>
                  <td data-label={t('rewards.col.state')}>
                    <span class={`badge reward-${stateOf(r).toLowerCase()}`}>{t(`rewards.state.${stateOf(r)}`)}</span>
                  </td>
                  {canAct && (
                    <td>
                      <RowActions r={r} label={label(r)} run={run} busy={busy} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton show={next} label={t('rewards.more')} onClick={() => load(next, false)} />
    </>
  );
}

function Rules() {
  return (
    <section aria-labelledby="rules-title" class="card rules">
      <h2 id="rules-title">{t('rewards.rules')}</h2>
      <ul>
        <li>{t('rewards.rules.approve')}</li>
        <li>{t('rewards.rules.fulfil')}</li>
        <li>{t('rewards.rules.delete')}</li>
      </ul>
    </section>
  );
}

export default function Rewards({ params: route }: { params: Record<string, string> }) {
  const id = route.programId!;
  const here = `/console/programs/${encodeURIComponent(id)}/rewards`;
  return (
    <>
      <PageTitle>{t('rewards.title')}</PageTitle>
      <p>{t('rewards.intro')}</p>
      <Rules />
      <Async depKey={id} load={() => api<Campaign>('GET', `/campaign/${encodeURIComponent(id)}`)}>
        {(c) =>
          c.type === 'AFFILIATE' ? (
            <p class="warning">{t('rewards.affiliate')}</p>
          ) : (
            // Opens on the rewards awaiting approval when there are any, else on all of them (issue #32).
            <CountedStates url={`/campaign/${encodeURIComponent(id)}/rewards/counts`} states={STATES} preferred="AWAITING_APPROVAL" all="ALL" param="state">
              {(chosen, counts, recount) => {
                const state = (chosen || 'ALL') as State;
                return (
                  <>
                    {!noneAtAll(counts) && <StateTabs label={t('rewards.states')} states={STATES} current={state} base={here} name={(s) => t(`rewards.state.${s}`)} counts={counts} />}
                    <Queue c={c} state={state} counts={counts} changed={recount} />
                  </>
                );
              }}
            </CountedStates>
          )
        }
      </Async>
    </>
  );
}
