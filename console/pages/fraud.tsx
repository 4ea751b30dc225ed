// A program's fraud review (FR1): the participants the anti-fraud checks flagged, why (each reason
// code in plain words, the server's details beside it), and the owner's decision recorded through
// P5 `fraudRiskLevel`: mark safe (LOW) or keep blocked (HIGH), shown under "Decided" afterwards.
import { CountedStates, EmptyList, noneAtAll, StateTabs, type Counts } from '../state-counts.tsx';
import { ButtonLink, EmptyState } from '../components.tsx';
import { useEffect, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, ErrorSummary, PageTitle } from '../ui.tsx';
import { t, when, type MessageKey } from '../i18n/index.ts';
import { FRAUD_REASONS } from '../i18n/en-fraud.ts';
import type { FraudDecisionWire, FraudReviewItem } from '../../shared/schemas/fraud.ts';

const STATES = ['OPEN', 'DECIDED', 'ALL'] as const;
type State = (typeof STATES)[number];
type Page = { participants: FraudReviewItem[]; nextId: string | null };

/** A reason code in plain words (an unknown future code is shown as itself). */
function reason(code: string): string {
  return (FRAUD_REASONS as readonly string[]).includes(code) ? t(`fraud.reason.${code}` as MessageKey) : t('fraud.reason.other', { code });
}

const level = (l: string) => t(`fraud.level.${l}` as MessageKey);

function Risk({ l }: { l: string }) {
  return <span class={`badge risk-${l.toLowerCase()}`}>{level(l)}</span>;
}

function Decision({ d }: { d: FraudDecisionWire }) {
  const vars = { date: when(d.createdAt), level: level(d.riskLevel) };
  return (
    <li>
      <p>
        {t(d.source === 'MANUAL' ? 'fraud.decision.owner' : 'fraud.decision.auto', vars)} <strong>{reason(d.reasonCode)}</strong>
        {!d.applied && <> {t('fraud.decision.notApplied')}</>}
      </p>
      {d.source === 'AUTOMATIC' && d.reasons.length > 0 && (
        <details>
          <summary>{t('fraud.details')}</summary>
          <ul>
            {d.reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </details>
      )}
    </li>
  );
}

/** The owner's current verdict, when the level is theirs. */
function OwnerDecision({ p }: { p: FraudReviewItem }) {
  if (p.fraudReasonCode !== 'MANUAL_UPDATE') return null;
  const d = p.decisions.find((x) => x.source === 'MANUAL');
  const date = when(d?.createdAt);
  const key = p.fraudRiskLevel === 'LOW' ? 'fraud.decided.safe' : p.fraudRiskLevel === 'HIGH' ? 'fraud.decided.blocked' : 'fraud.decided.medium';
  return <p class={`decided ${p.fraudRiskLevel === 'LOW' ? 'safe' : 'blocked'}`}>{t(key, { date })}</p>;
}

function Card({ p, decide, busy }: { p: FraudReviewItem; decide: (p: FraudReviewItem, l: 'LOW' | 'HIGH') => void; busy: boolean }) {
  const titleId = `fraud-${p.id}`;
  const auto = p.decisions.filter((d) => d.source === 'AUTOMATIC' && d.riskLevel !== 'LOW');
  const codes = [...new Set(auto.map((d) => d.reasonCode))];
  return (
    <li>
      <article aria-labelledby={titleId} class="card fraud-card">
        <header>
          <h2 id={titleId}>{p.email}</h2>
          <Risk l={p.fraudRiskLevel} />
        </header>
        <p class="hint">
          {t('fraud.joined', { date: when(p.createdAt) })}
          {p.referralStatus && <> · {t('fraud.referral', { status: t(`fraud.referralStatus.${p.referralStatus}` as MessageKey) })}</>}
        </p>
        <OwnerDecision p={p} />
        {codes.length > 0 && (
          <>
            <h3>{t('fraud.why')}</h3>
            <ul class="reasons">
              {codes.map((c) => (
                <li key={c}>{reason(c)}</li>
              ))}
            </ul>
          </>
        )}
        {p.allMatchingFraudsters.length > 0 && (
          <>
            <h3>{t('fraud.matches')}</h3>
            <ul>
              {p.allMatchingFraudsters.map((m) => (
                <li key={m.id}>{m.email}</li>
              ))}
            </ul>
          </>
        )}
        {p.decisions.length > 0 && (
          <details>
            <summary>{t('fraud.decisions')}</summary>
            <ul class="decisions">
              {p.decisions.map((d) => (
                <Decision key={d.id} d={d} />
              ))}
            </ul>
          </details>
        )}
        {can('participant:write') && (
          <div class="buttons">
            {!(p.fraudReasonCode === 'MANUAL_UPDATE' && p.fraudRiskLevel === 'LOW') && (
              <button type="button" disabled={busy} aria-label={t('fraud.markSafeLabel', { email: p.email })} onClick={() => decide(p, 'LOW')}>
                {t('fraud.markSafe')}
              </button>
            )}
            {!(p.fraudReasonCode === 'MANUAL_UPDATE' && p.fraudRiskLevel === 'HIGH') && (
              <button type="button" class="danger" disabled={busy} aria-label={t('fraud.keepBlockedLabel', { email: p.email })} onClick={() => decide(p, 'HIGH')}>
                {t('fraud.keepBlocked')}
              </button>
            )}
          </div>
        )}
      </article>
    </li>
  );
}

/** A program whose sign-ups were never flagged: when one is, and where the checks are tuned (for a role that may) or who joined. */
function NoneFlagged({ programId }: { programId: string }) {
  const program = `/console/programs/${encodeURIComponent(programId)}`;
  return (
    <EmptyState
      title={t('fraud.empty.title')}
      text={t('fraud.empty.text')}
      action={
        <>
          {can('program:write') && <ButtonLink href={`${program}/settings`}>{t('fraud.empty.settings')}</ButtonLink>}
          <ButtonLink kind="secondary" href={`${program}/participants`}>
            {t('empty.participants')}
          </ButtonLink>
        </>
      }
    />
  );
}

function Review({ programId, state, counts, changed }: { programId: string; state: State; counts: Counts | null; changed: () => void }) {
  const [pages, setPages] = useState<Page[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const base = `/campaign/${encodeURIComponent(programId)}`;
  const load = async (nextId: string | null, reset = false) => {
    setError(null);
    try {
      const page = await api<Page>('GET', `${base}/fraud-reviews${query({ state, limit: 25, nextId })}`);
      setPages((p) => (reset || !p ? [page] : [...p, page]));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    setPages(null);
    void load(null, true);
  }, [programId, state]);

  const decide = async (p: FraudReviewItem, l: 'LOW' | 'HIGH') => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `${base}/participant/${encodeURIComponent(p.id)}`, { fraudRiskLevel: l });
      announce(t(l === 'LOW' ? 'fraud.markedSafe' : 'fraud.keptBlocked', { email: p.email }));
      await load(null, true);
      changed();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const rows = pages?.flatMap((p) => p.participants) ?? [];
  const next = pages?.at(-1)?.nextId ?? null;
  return (
    <>
      <ErrorSummary error={error} />
      {!pages && !error && <p aria-live="polite">{t('state.loading')}</p>}
      {pages && !rows.length && (
        <EmptyList filtered={state !== 'ALL'} counts={counts} none={t('fraud.none')} allHref={`/console/programs/${encodeURIComponent(programId)}/fraud?state=ALL`}>
          <NoneFlagged programId={programId} />
        </EmptyList>
      )}
      {rows.length > 0 && (
        <>
          <p class="hint" id="fraud-list-title">
            {t('fraud.list', { state: t(`fraud.state.${state}`) })} ({t('fraud.count', { count: rows.length })})
          </p>
          <ul class="fraud-list" aria-labelledby="fraud-list-title">
            {rows.map((p) => (
              <Card key={p.id} p={p} decide={decide} busy={busy} />
            ))}
          </ul>
        </>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => load(next)}>
          {t('fraud.more')}
        </button>
      )}
    </>
  );
}

export default function Fraud({ params: route }: { params: Record<string, string> }) {
  const id = route.programId!;
  const here = `/console/programs/${encodeURIComponent(id)}/fraud`;
  return (
    <>
      <PageTitle>{t('fraud.title')}</PageTitle>
      <p>{t('fraud.intro')}</p>
      <p class="hint">{can('participant:write') ? t('fraud.actionsHint') : t('fraud.readOnly')}</p>
      {/* Opens on the open reviews when there are any, else on all of them (issue #32). */}
      <CountedStates url={`/campaign/${encodeURIComponent(id)}/fraud-reviews/counts`} states={STATES} preferred="OPEN" all="ALL" param="state">
        {(chosen, counts, recount) => {
          const state = (chosen || 'ALL') as State;
          return (
            <>
              {!noneAtAll(counts) && <StateTabs label={t('fraud.states')} states={STATES} current={state} base={here} name={(s) => t(`fraud.state.${s}`)} counts={counts} />}
              <Review programId={id} state={state} counts={counts} changed={recount} />
            </>
          );
        }}
      </CountedStates>
    </>
  );
}
