// A program's home (issue #32): what needs the owner today (rewards to approve, fraud to review,
// applications, commissions and payouts waiting, refunds that never matched a sale, the script not seen yet, emails held until the
// team is verified), headline numbers with the last 30 days against the 30 before and a trend
// line, its rewards, and the state moves the API allows (launch, end, clone), each explained first.
// Every number comes from the REST operations the rest of the console uses (the lists' counts operations); one the owner's scopes
// do not allow is left out rather than shown as an error.
import { api, can, query, session } from '../api.ts';
import { navigate } from '../router.tsx';
import { announce, Async, Badge, ErrorSummary, useAction } from '../ui.tsx';
import { Button, ButtonLink, Card, Kpi, Kpis, PageHeader, StatusBadge } from '../components.tsx';
import { num, t, type MessageKey } from '../i18n/index.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import type { CampaignAnalytics } from '../../shared/schemas/analytics.ts';
import type { BillingConnection } from '../../shared/schemas/billing.ts';


/** One thing that needs the owner: how many, what it is, where to act. */
interface Todo {
  id: string;
  text: string;
  href: string;
  action: string;
  tone: 'warning' | 'attention' | 'info';
}

/** What the home reads besides the program: each piece is absent when its scope is missing or its read failed. */
interface Loaded {
  c: Campaign;
  rewards?: number;
  fraud?: number;
  applications?: number;
  commissions?: number;
  payouts?: number;
  /** Issue #35: refunds of each billing connection whose sale never arrived (BI1, BI6). */
  unmatchedStripe?: number;
  unmatchedPaddle?: number;
  analytics?: CampaignAnalytics;
}

const settled = async <T,>(ok: boolean, read: () => Promise<T>): Promise<T | undefined> => (ok ? read().catch(() => undefined) : undefined);

async function load(id: string): Promise<Loaded> {
  const base = `/campaign/${encodeURIComponent(id)}`;
  const c = await api<Campaign>('GET', base);
  const aff = c.type === 'AFFILIATE';
  const [rewards, fraud, applications, commissions, payouts, analytics, unmatchedStripe, unmatchedPaddle] = await Promise.all([
    settled(!aff && can('reward:read'), () => api<{ AWAITING_APPROVAL: number }>('GET', `${base}/rewards/counts`).then((r) => r.AWAITING_APPROVAL)),
    // The lists' counts operations (FR2, AF16–AF18): one grouped read each, exact, the same numbers their filters show.
    settled(can('participant:read'), () => api<{ OPEN: number }>('GET', `${base}/fraud-reviews/counts`).then((r) => r.OPEN)),
    settled(aff && can('participant:read'), () => api<{ PENDING: number }>('GET', `${base}/affiliate-applications/counts`).then((r) => r.PENDING)),
    settled(aff && can('reward:read'), () => api<{ PENDING: number }>('GET', `${base}/commissions/counts`).then((r) => r.PENDING)),
    settled(aff && can('reward:read'), () => api<{ UPCOMING: number }>('GET', `${base}/payouts/counts`).then((r) => r.UPCOMING)),
    settled(can('analytics:read'), () => api<CampaignAnalytics>('GET', `${base}/analytics${query({ days: 30, interval: 'day', include: 'previousPeriod' })}`)),
    // Only an affiliate program's refunds reverse commissions.
    settled(aff && can('program:read'), () => api<BillingConnection>('GET', `${base}/integrations/stripe`).then((r) => r.unmatchedRefunds)),
    settled(aff && can('program:read'), () => api<BillingConnection>('GET', `${base}/integrations/paddle`).then((r) => r.unmatchedRefunds)),
  ]);
  return { c, rewards, fraud, applications, commissions, payouts, analytics, unmatchedStripe, unmatchedPaddle };
}

/** The owner's to-do list, most pressing first; only what has something in it. */
function todos(d: Loaded): Todo[] {
  const { c } = d;
  const at = (path: string) => `/console/programs/${encodeURIComponent(c.id)}${path}`;
  const list: Todo[] = [];
  const s = session.value;
  if (s && s.team && s.team.verificationStatus !== 'VERIFIED')
    list.push({ id: 'verify', text: t(c.type === 'AFFILIATE' ? 'home.todo.verifyAffiliate' : 'home.todo.verify'), href: '/console/team', action: t('home.todo.verifyAction'), tone: 'warning' });
  const add = (id: string, count: number | undefined, key: MessageKey, href: string, action: MessageKey) => {
    if (count) list.push({ id, text: t(key, { count }), href: at(href), action: t(action), tone: 'attention' });
  };
  add('rewards', d.rewards, 'home.todo.rewards', '/rewards', 'home.todo.rewardsAction');
  add('fraud', d.fraud, 'home.todo.fraud', '/fraud', 'home.todo.fraudAction');
  add('applications', d.applications, 'home.todo.applications', '/affiliates/applications?status=PENDING', 'home.todo.applicationsAction');
  add('commissions', d.commissions, 'home.todo.commissions', '/affiliates/commissions?status=PENDING', 'home.todo.commissionsAction');
  add('payouts', d.payouts, 'home.todo.payouts', '/affiliates/payouts', 'home.todo.payoutsAction');
  add('unmatched-stripe', d.unmatchedStripe, 'home.todo.unmatchedStripe', '/integrations/stripe', 'home.todo.unmatchedAction');
  add('unmatched-paddle', d.unmatchedPaddle, 'home.todo.unmatchedPaddle', '/integrations/paddle', 'home.todo.unmatchedAction');
  if (c.status !== 'COMPLETE' && c.impressionCount === 0)
    list.push({ id: 'install', text: t('home.todo.install'), href: at('/settings/installation'), action: t('home.todo.installAction'), tone: 'info' });
  if (c.status === 'DRAFT') list.push({ id: 'launch', text: t('home.todo.launch'), href: '', action: t('home.todo.launchAction'), tone: 'info' });
  return list;
}

/** Scrolls to the program state card and gives its first button focus. */
function toLaunch() {
  const card = document.getElementById('actions');
  card?.scrollIntoView({ block: 'start' });
  card?.querySelector<HTMLElement>('button')?.focus({ preventScroll: true });
}

function Today({ d }: { d: Loaded }) {
  const items = todos(d);
  return (
    <Card id="today" title={t('home.today')}>
      {items.length === 0 ? (
        <p class="today-clear">{t('home.todo.none')}</p>
      ) : (
        <ul class="todo-list">
          {items.map((i) => (
            <li key={i.id} class={`todo tone-${i.tone}`} data-todo={i.id}>
              <span class="todo-text">{i.text}</span>
              {i.href === '' ? (
                // The launch is the state card's own button, below: take the owner there.
                <Button kind="secondary" size="small" onClick={toLaunch}>
                  {i.action}
                </Button>
              ) : (
                <ButtonLink kind="secondary" size="small" href={i.href}>
                  {i.action}
                </ButtonLink>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** The change from `before` to `now` as "+12%" (or a plain "new" from nothing), with its direction. */
function change(now: number, before: number): { delta: string; trend?: 'up' | 'down' } {
  if (before === 0) return now === 0 ? { delta: t('home.kpi.flat') } : { delta: t('home.kpi.fromNone') };
  const pct = Math.round(((now - before) / before) * 100);
  return { delta: t('home.kpi.change', { change: `${pct > 0 ? '+' : ''}${pct}%` }), trend: pct > 0 ? 'up' : pct < 0 ? 'down' : undefined };
}

/** Participants per day over the last 30 days as a small line, with its numbers said in its name. */
function Trend({ a }: { a: CampaignAnalytics }) {
  const values = (a.series ?? []).map((s) => s.participants ?? 0);
  if (values.length < 2) return null;
  const max = Math.max(1, ...values);
  const w = 300;
  const h = 60;
  const x = (i: number) => (i / (values.length - 1)) * w;
  const y = (v: number) => h - 4 - (v / max) * (h - 8);
  const line = values.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  const total = values.reduce((n, v) => n + v, 0);
  return (
    <figure class="trend">
      <svg viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={t('home.trend.label', { count: total, most: max })}>
        <path d={`${line}L${w},${h}L0,${h}Z`} class="trend-area" />
        <path d={line} class="trend-line" />
      </svg>
      <figcaption>{t('home.trend.caption')}</figcaption>
    </figure>
  );
}

function Numbers({ d }: { d: Loaded }) {
  const { c, analytics: a } = d;
  const now = a?.analytics;
  const before = a?.previousPeriod?.analytics;
  const joined = now && before ? change(now.participants ?? 0, before.participants ?? 0) : undefined;
  const referred = now && before ? change(now.referrals ?? 0, before.referrals ?? 0) : undefined;
  return (
    <>
      <Kpis label={t('home.kpis')}>
        <Kpi label={t('col.participants')} value={num(c.participantCount)} help={t('home.kpi.allTime')} />
        {joined && <Kpi label={t('home.kpi.joined30')} value={num(now!.participants ?? 0)} delta={joined.delta} trend={joined.trend} />}
        <Kpi label={t('col.referrals')} value={num(c.referralCount)} help={t('home.kpi.allTime')} />
        {referred && <Kpi label={t('home.kpi.referred30')} value={num(now!.referrals ?? 0)} delta={referred.delta} trend={referred.trend} />}
        <Kpi label={t('col.impressions')} value={num(c.impressionCount)} help={t('home.kpi.allTime')} />
      </Kpis>
      {a && (
        <Card id="trend" title={t('home.trend.title')} action={can('analytics:read') ? <ButtonLink kind="plain" size="small" href={`/console/programs/${encodeURIComponent(c.id)}/analytics`}>{t('home.trend.more')}</ButtonLink> : undefined}>
          <Trend a={a} />
        </Card>
      )}
    </>
  );
}

function Actions({ c, reload }: { c: Campaign; reload: () => void }) {
  const { error, busy, run: act } = useAction();
  const move = (status: 'IN_PROGRESS' | 'COMPLETE') =>
    act(async () => {
      if (status === 'COMPLETE' && !confirm(t('program.confirmEnd', { name: c.name }))) return;
      await api('PATCH', `/campaign/${encodeURIComponent(c.id)}`, { status });
      announce(t(status === 'IN_PROGRESS' ? 'program.launched' : 'program.ended'));
      reload();
    });
  const clone = () =>
    act(async () => {
      const copy = await api<Campaign>('POST', `/campaign/${encodeURIComponent(c.id)}/clone`, {});
      announce(t('program.cloned', { name: copy.name }));
      navigate(`/console/programs/${encodeURIComponent(copy.id)}`);
    });
  const help = c.status === 'DRAFT' ? 'program.draftHelp' : c.status === 'IN_PROGRESS' ? 'program.liveHelp' : 'program.completeHelp';
  return (
    <Card id="actions" title={t('program.actions')} description={t(help)}>
      <ErrorSummary error={error} />
      {can('program:write') && (
        <div class="buttons">
          {c.status === 'DRAFT' && (
            <Button disabled={busy} onClick={() => move('IN_PROGRESS')}>
              {t('program.launch')}
            </Button>
          )}
          {c.status !== 'COMPLETE' && (
            <Button kind="critical" disabled={busy} onClick={() => move('COMPLETE')}>
              {t('program.end')}
            </Button>
          )}
          <Button kind="secondary" disabled={busy} onClick={clone}>
            {t('program.clone')}
          </Button>
        </div>
      )}
    </Card>
  );
}

function Overview({ d, reload }: { d: Loaded; reload: () => void }) {
  const { c } = d;
  return (
    <>
      <PageHeader
        title={c.name}
        meta={
          <p class="badges">
            <Badge k={`type.${c.type}`} /> <StatusBadge state={c.status}>{t(`status.${c.status}`)}</StatusBadge>{' '}
            <span class="hint">
              {t('program.id')} <code>{c.id}</code>
            </span>
          </p>
        }
      />
      <Today d={d} />
      <Numbers d={d} />
      <Card id="rewards" title={t('program.rewards')}>
        {c.rewards.length ? (
          <ul>
            {c.rewards.map((r) => (
              <li key={r.id}>{r.description || r.type}</li>
            ))}
          </ul>
        ) : (
          <p class="warning">{t('program.noRewards')}</p>
        )}
      </Card>
      <Actions c={c} reload={reload} />
    </>
  );
}

export default function Program({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <Async depKey={id} load={() => load(id)}>
      {(d, reload) => <Overview d={d} reload={reload} />}
    </Async>
  );
}
