// The analytics page's activation cohorts (AN2: participants grouped by when they joined, followed
// through sharing, a unique referral visit, a lead and a credited referral) and its top referrers
// (the P2 leaderboard).
import { useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { Async, Field } from '../ui.tsx';
import { num, t, type MessageKey } from '../i18n/index.ts';
import type { CampaignActivationAnalytics, CohortResult } from '../../shared/schemas/analytics.ts';
import type { Participant } from '../../shared/schemas/participant.ts';
import { DataTable, type Cell } from './data-table.tsx';
import { dayOf } from './analytics-range.ts';
import { shortDate } from './analytics-chart.tsx';

const DAY = 86_400_000;
const STAGES = ['ELIGIBLE', 'PORTAL_VIEWED', 'SHARE_ACTION', 'UNIQUE_REFERRAL_VISIT', 'LEAD', 'CREDITED_REFERRAL'] as const;
const pct = (r: number | null) => (r === null ? '—' : `${(Math.round(r * 1000) / 10).toLocaleString('en')}%`);

/** Why a cohort has no (full) numbers, in words. */
function stateText(c: CohortResult): string {
  const state = t(`cohortState.${c.state}`);
  return c.reason ? `${state}: ${t(`reason.${c.reason}`)}` : state;
}

function stageLabel(key: string, a: CampaignActivationAnalytics): string {
  return key === 'PORTAL_VIEWED' ? a.portalViewedLabel : t(`stage.${key}` as MessageKey);
}

function Funnel({ a, tz }: { a: CampaignActivationAnalytics; tz: string }) {
  const agg = a.aggregate;
  const span = `${dayOf(agg.cohort.from, tz)}_${dayOf(agg.cohort.to - 1, tz)}`;
  const stages: Cell[][] = (agg.strictStages ?? []).map((s) => [
    { text: stageLabel(s.key, a), csv: s.key },
    { text: num(s.count), csv: s.count },
    { text: pct(s.conversionRateFromPrior), csv: s.conversionRateFromPrior ?? '' },
    { text: pct(s.conversionRateFromEligible), csv: s.conversionRateFromEligible ?? '' },
  ]);
  // Columns only for the stages this server observes: a stage without coverage is left out, not shown as zero.
  const measured = STAGES.filter((k) => [agg, ...a.cohorts].some((c) => c.strictStages?.some((s) => s.key === k)));
  const cohorts: Cell[][] = a.cohorts.map((c) => [
    { text: shortDate(c.cohort.from, tz), csv: dayOf(c.cohort.from, tz) },
    { text: stateText(c), csv: c.reason ? `${c.state} ${c.reason}` : c.state },
    ...measured.map((k) => {
      const n = c.strictStages?.find((s) => s.key === k)?.count;
      return n === undefined ? { text: '—', csv: '' } : { text: num(n), csv: n };
    }),
  ]);
  return (
    <>
      <p>
        {t('cohorts.aggregate', { from: shortDate(agg.cohort.from, tz), to: shortDate(agg.cohort.to - 1, tz), days: a.observationWindowDays })} {stateText(agg)}.
      </p>
      {agg.largestDrop && <p>{t('cohorts.largestDrop', { from: stageLabel(agg.largestDrop.fromStage, a), to: stageLabel(agg.largestDrop.toStage, a), count: agg.largestDrop.count, area: agg.largestDrop.improvementArea })}</p>}
      {stages.length > 0 && (
        <DataTable
          caption={t('cohorts.funnelCaption')}
          columns={[{ label: t('cohorts.stage') }, { label: t('metric.participants'), num: true }, { label: t('cohorts.fromPrior'), num: true }, { label: t('cohorts.fromEligible'), num: true }]}
          rows={stages}
          file={`activation-funnel-${span}.csv`}
        />
      )}
      <DataTable
        caption={t('cohorts.tableCaption', { interval: t(`interval.${a.cohortInterval}`) })}
        columns={[{ label: t('cohorts.cohort') }, { label: t('col.status') }, ...measured.map((k) => ({ label: stageLabel(k, a), num: true }))]}
        rows={cohorts}
        file={`activation-cohorts-${span}.csv`}
        empty={t('cohorts.none')}
      />
      <p class="hint">{a.portalViewedHelperText}</p>
    </>
  );
}

/** Activation cohorts of the participants who joined between `from` and `to` (the window on screen). */
export function Cohorts({ programId, from, to, tz }: { programId: string; from: number; to: number; tz: string }) {
  const [days, setDays] = useState<'7' | '30'>('30');
  const span = (to - from) / DAY;
  const cohortInterval = span <= 14 ? 'day' : span <= 400 ? 'week' : 'month';
  const q = query({ cohortFrom: from, cohortTo: to + 1, cohortInterval, observationWindowDays: days, timezone: tz });
  return (
    <section aria-labelledby="cohorts-title">
      <h2 id="cohorts-title">{t('cohorts.title')}</h2>
      <p class="hint">{t('cohorts.help')}</p>
      <Field id="cohort-days" label={t('cohorts.observe')}>
        <select id="cohort-days" value={days} onChange={(e) => setDays(e.currentTarget.value as '7' | '30')}>
          <option value="7">{t('cohorts.days', { count: 7 })}</option>
          <option value="30">{t('cohorts.days', { count: 30 })}</option>
        </select>
      </Field>
      <Async depKey={`${programId}${q}`} load={() => api<CampaignActivationAnalytics>('GET', `/campaign/${encodeURIComponent(programId)}/analytics/activation${q}`)}>
        {(a) => <Funnel a={a} tz={tz} />}
      </Async>
    </section>
  );
}

const BOARDS = ['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH'] as const;

/** The ten participants ranked highest on the chosen leaderboard. */
export function TopReferrers({ programId }: { programId: string }) {
  const [board, setBoard] = useState<(typeof BOARDS)[number]>('ALL_TIME');
  if (!can('participant:read')) return null;
  const q = query({ leaderboardType: board, limit: 10 });
  return (
    <section aria-labelledby="referrers-title">
      <h2 id="referrers-title">{t('referrers.title')}</h2>
      <Field id="referrers-board" label={t('referrers.board')}>
        <select id="referrers-board" value={board} onChange={(e) => setBoard(e.currentTarget.value as (typeof BOARDS)[number])}>
          {BOARDS.map((b) => (
            <option key={b} value={b}>
              {t(`board.${b}`)}
            </option>
          ))}
        </select>
      </Field>
      <Async depKey={`${programId}${q}`} load={() => api<{ participants: Participant[] }>('GET', `/campaign/${encodeURIComponent(programId)}/leaderboard${q}`)}>
        {(page) => (
          <DataTable
            caption={t('referrers.caption', { board: t(`board.${board}`) })}
            columns={[{ label: t('col.email') }, { label: t('referrers.rank'), num: true }, { label: t('col.name') }, { label: t('referrers.allTime'), num: true }, { label: t('referrers.thisMonth'), num: true }]}
            rows={page.participants.map((p) => [
              { text: p.email },
              { text: num(p.rank), csv: p.rank },
              { text: [p.firstName, p.lastName].filter(Boolean).join(' ') || '—', csv: [p.firstName, p.lastName].filter(Boolean).join(' ') },
              { text: num(p.referralCount), csv: p.referralCount },
              { text: num(p.monthlyReferralCount), csv: p.monthlyReferralCount },
            ])}
            file={`top-referrers-${board.toLowerCase()}-${programId}.csv`}
            empty={t('referrers.none')}
          />
        )}
      </Async>
    </section>
  );
}
