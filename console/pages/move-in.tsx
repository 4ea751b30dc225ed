// Moving a program in (issue #33 part 5): the same import as `refloop import growsurf`, through the
// REST extensions IM1–IM4. The owner names the source and its key, picks one of the source's
// programs, optionally checks it first (dry run), and starts the import, which runs as a job on the
// server; this page polls its progress, offers the refusals as CSV, and shows the webhook secrets
// the server answers once. The program being moved stays in the address (`?program=`), so a reload
// keeps watching it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { navigate, params, here } from '../router.tsx';
import { Button, ButtonLink, Card, StatusBadge, Table, type Tone } from '../components.tsx';
import { announce, Field, PageTitle, RefusalSummary, SecretBox } from '../ui.tsx';
import { messageFor } from '../field-messages.ts';
import { num, t, type MessageKey } from '../i18n/index.ts';
import type { ImportProgressView, ImportSourceProgram } from '../../shared/schemas/imports.ts';

const DEFAULT_URL = 'https://api.growsurf.com/v2';
const POLL_MS = 1500;

const STAGES: Record<string, MessageKey> = {
  program: 'movein.stage.program',
  documents: 'movein.stage.documents',
  rewards: 'movein.stage.rewards',
  webhooks: 'movein.stage.webhooks',
  resources: 'movein.stage.resources',
  participants: 'movein.stage.participants',
  referrals: 'movein.stage.referrals',
  payouts: 'movein.stage.payouts',
  commissions: 'movein.stage.commissions',
  affiliateInvites: 'movein.stage.affiliateInvites',
  applications: 'movein.stage.applications',
  totals: 'movein.stage.totals',
  destinations: 'movein.stage.destinations',
  activity: 'movein.stage.activity',
  links: 'movein.stage.links',
  done: 'movein.stage.done',
};

const KINDS: Array<[kind: string, label: MessageKey]> = [
  ['program', 'movein.kind.program'],
  ['documents', 'movein.kind.documents'],
  ['rewards', 'movein.kind.rewards'],
  ['webhooks', 'movein.kind.webhooks'],
  ['resources', 'movein.kind.resources'],
  ['participants', 'movein.kind.participants'],
  ['issuedRewards', 'movein.kind.issuedRewards'],
  ['invites', 'movein.kind.invites'],
  ['payouts', 'movein.kind.payouts'],
  ['commissions', 'movein.kind.commissions'],
  ['affiliateInvites', 'movein.kind.affiliateInvites'],
  ['applications', 'movein.kind.applications'],
  ['destinations', 'movein.kind.destinations'],
  ['activity', 'movein.kind.activity'],
];

const STATUS: Record<ImportProgressView['status'], [MessageKey, Tone]> = {
  QUEUED: ['movein.status.queued', 'info'],
  RUNNING: ['movein.status.running', 'info'],
  DONE: ['movein.status.done', 'success'],
  FAILED: ['movein.status.failed', 'critical'],
};

const ended = (p: ImportProgressView | null) => !!p && (p.status === 'DONE' || p.status === 'FAILED');

/** An import's progress, polled until it ends; secrets kept once the server has answered them. */
function useProgress(programId: string | null, generation: number) {
  const [progress, setProgress] = useState<ImportProgressView | null>(null);
  const [secrets, setSecrets] = useState<Array<{ id: string; secret: string }>>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setProgress(null);
    setError(null);
    if (!programId) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const p = await api<ImportProgressView>('GET', `/imports/${encodeURIComponent(programId)}`);
        if (!live) return;
        // Answered once by the server: kept here until the owner says they saved them.
        if (p.webhookSecrets.length) setSecrets((s) => [...s, ...p.webhookSecrets]);
        setProgress(p);
        setError(null);
        if (ended(p)) announce(p.status === 'FAILED' ? t('movein.failed', { message: p.message ?? '' }) : p.dryRun ? t('movein.doneDry') : t('movein.done', { name: p.name }));
        else timer = setTimeout(poll, POLL_MS);
      } catch (e) {
        if (!live) return;
        setError(e);
        timer = setTimeout(poll, POLL_MS * 2);
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [programId, generation]);
  return { progress, secrets, setSecrets, error };
}

function Counts({ p }: { p: ImportProgressView }) {
  const shown = KINDS.filter(([k]) => {
    const c = p.counts[k as keyof ImportProgressView['counts']];
    return c && (c.created || c.skipped || c.refused);
  });
  if (!shown.length) return null;
  return (
    <Table caption={t('movein.counts.caption')}>
      <thead>
        <tr>
          <th scope="col">{t('movein.counts.kind')}</th>
          <th scope="col">{p.dryRun ? t('movein.counts.wouldCreate') : t('movein.counts.created')}</th>
          <th scope="col">{t('movein.counts.skipped')}</th>
          <th scope="col">{t('movein.counts.refused')}</th>
        </tr>
      </thead>
      <tbody>
        {shown.map(([k, label]) => {
          const c = p.counts[k as keyof ImportProgressView['counts']]!;
          return (
            <tr key={k}>
              <th scope="row" data-label={t('movein.counts.kind')}>
                {t(label)}
              </th>
              <td data-label={p.dryRun ? t('movein.counts.wouldCreate') : t('movein.counts.created')}>{num(c.created)}</td>
              <td data-label={t('movein.counts.skipped')}>{num(c.skipped)}</td>
              <td data-label={t('movein.counts.refused')}>{num(c.refused)}</td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

function Progress({ p, error, onRunForReal }: { p: ImportProgressView | null; error: unknown; onRunForReal: (() => void) | null }) {
  const heading = useRef<HTMLHeadingElement>(null);
  if (!p) return error ? <RefusalSummary error={error} /> : <p aria-live="polite">{t('state.loading')}</p>;
  const [statusKey, tone] = STATUS[p.status];
  const stage = STAGES[p.stage] ?? 'movein.stage.program';
  const csv = `/console/api/v2/imports/${encodeURIComponent(p.programId)}/refusals.csv`;
  return (
    <section class="card" aria-labelledby="movein-progress-title">
      <div class="card-header">
        <div>
          <h2 id="movein-progress-title" tabIndex={-1} ref={heading}>
            {p.dryRun ? t('movein.progress.dryTitle', { name: p.name }) : t('movein.progress.title', { name: p.name })}
          </h2>
          <p>
            <StatusBadge tone={tone}>{t(statusKey)}</StatusBadge> {!ended(p) && <span>{t('movein.progress.stage', { stage: t(stage) })}</span>}
          </p>
        </div>
      </div>
      {!ended(p) && (
        <p>
          <label for="movein-bar">{p.total ? t('movein.progress.count', { done: num(p.done), total: num(p.total) }) : t('movein.progress.countOnly', { done: num(p.done) })}</label>{' '}
          <progress id="movein-bar" max={p.total ?? undefined} value={p.total ? Math.min(p.done, p.total) : undefined} />
        </p>
      )}
      {p.message && <p class={p.status === 'FAILED' ? 'error' : 'hint'}>{p.status === 'FAILED' ? t('movein.failed', { message: p.message }) : p.message}</p>}
      {p.status === 'DONE' && (
        <div class="ready">
          <p>{p.dryRun ? t('movein.doneDry') : t('movein.done', { name: p.name })}</p>
        </div>
      )}
      <Counts p={p} />
      <p>{p.refusalCount ? t('movein.refusals', { count: p.refusalCount }) : t('movein.refusals.none')}</p>
      <div class="buttons">
        {p.refusalCount > 0 && (
          <a class="button secondary" href={csv} download={`import-refusals-${p.programId}.csv`}>
            {t('movein.refusals.download')}
          </a>
        )}
        {p.status === 'DONE' && !p.dryRun && <ButtonLink href={`/console/programs/${encodeURIComponent(p.programId)}`}>{t('movein.open')}</ButtonLink>}
        {p.status === 'DONE' && p.dryRun && onRunForReal && <Button onClick={onRunForReal}>{t('movein.runNow')}</Button>}
      </div>
    </section>
  );
}

/** The "Move a program in" page. */
export default function MoveInPage() {
  const watching = params().get('program');
  const [url, setUrl] = useState(DEFAULT_URL);
  const [key, setKey] = useState('');
  const [list, setList] = useState<ImportSourceProgram[] | null>(null);
  const [picked, setPicked] = useState('');
  const [dryRun, setDryRun] = useState(false);
  const [busy, setBusy] = useState<'' | 'list' | 'start'>('');
  const [listError, setListError] = useState<unknown>(null);
  const [startError, setStartError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const { progress, secrets, setSecrets, error } = useProgress(watching, generation);
  const pickRef = useRef<HTMLHeadingElement>(null);

  const watch = (programId: string | null) => {
    const base = here.value.split('?')[0]!;
    navigate(programId ? `${base}?program=${encodeURIComponent(programId)}` : base, true);
  };

  const listPrograms = async (e: Event) => {
    e.preventDefault();
    setBusy('list');
    setListError(null);
    setList(null);
    try {
      const r = await api<{ programs: ImportSourceProgram[] }>('POST', '/imports/growsurf/programs', { sourceUrl: url, apiKey: key });
      setList(r.programs);
      setPicked(r.programs.find((p) => !p.here)?.id ?? '');
      announce(t('movein.pick.found', { count: r.programs.length }));
      setTimeout(() => pickRef.current?.focus(), 0);
    } catch (err) {
      setListError(err);
    } finally {
      setBusy('');
    }
  };

  const start = async (programId: string, dry: boolean) => {
    if (!programId) return setStartError(new Error(t('movein.pick.choose')));
    setBusy('start');
    setStartError(null);
    try {
      await api<ImportProgressView>('POST', '/imports/growsurf', { sourceUrl: url, apiKey: key, programId, dryRun: dry });
      watch(programId);
      setGeneration((g) => g + 1);
    } catch (err) {
      setStartError(err);
    } finally {
      setBusy('');
    }
  };

  // Checked and clean: the same program, for real, with the key still in this page's memory.
  const runForReal = progress?.dryRun && key && progress.programId ? () => void start(progress.programId, false) : null;

  return (
    <>
      <PageTitle>{t('movein.title')}</PageTitle>
      {secrets.map((s, i) => (
        <SecretBox
          key={s.id}
          titleId={`movein-secret-${i}`}
          level={2}
          focus="title"
          role="status"
          title={t('movein.secret.title', { id: s.id })}
          body={t('movein.secret.body')}
          secret={s.secret}
          copyLabel={t('movein.secret.copy')}
          copied={t('movein.secret.copied')}
          doneLabel={t('movein.secret.done')}
          onDone={() => setSecrets((all) => all.filter((x) => x.id !== s.id))}
        />
      ))}
      {watching && (
        <>
          <Progress p={progress} error={error} onRunForReal={runForReal} />
          {ended(progress) && (
            <p>
              <Button kind="plain" onClick={() => watch(null)}>
                {t('movein.another')}
              </Button>
            </p>
          )}
        </>
      )}
      {!watching && (
        <>
          <Card id="movein-source" title={t('movein.source.title')} description={t('movein.intro')}>
            <form onSubmit={listPrograms} noValidate>
              <Field id="movein-url" label={t('movein.source.url')} hint={t('movein.source.urlHint')} error={messageFor(listError, 'sourceUrl') ?? messageFor(startError, 'sourceUrl')}>
                <input id="movein-url" data-field="sourceUrl" type="url" inputMode="url" autoComplete="url" spellcheck={false} maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} required />
              </Field>
              <Field id="movein-key" label={t('movein.source.key')} hint={t('movein.source.keyHint')} error={messageFor(listError, 'apiKey') ?? messageFor(startError, 'apiKey')}>
                <input id="movein-key" data-field="apiKey" type="password" autoComplete="off" spellcheck={false} maxLength={512} value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
              </Field>
              <RefusalSummary error={listError} />
              <Button type="submit" kind={list ? 'secondary' : 'primary'} disabled={busy !== ''}>
                {busy === 'list' ? t('movein.source.listing') : t('movein.source.list')}
              </Button>
            </form>
          </Card>
          {list && (
            <section class="card" aria-labelledby="movein-pick-title">
              <h2 id="movein-pick-title" tabIndex={-1} ref={pickRef}>
                {t('movein.pick.title')}
              </h2>
              {list.length === 0 ? (
                <p>{t('movein.pick.none')}</p>
              ) : (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    void start(picked, dryRun);
                  }}
                >
                  <fieldset data-field="programId">
                    <legend>{t('movein.pick.legend')}</legend>
                    {list.map((p) => (
                      <label class="choice" key={p.id}>
                        <input type="radio" name="movein-program" value={p.id} checked={picked === p.id} disabled={p.here} onChange={() => setPicked(p.id)} />
                        <span>
                          {t('movein.pick.option', { name: p.name, id: p.id })} · {p.type === 'AFFILIATE' ? t('movein.type.affiliate') : t('movein.type.referral')}
                          {p.participantCount !== null && <> · {t('movein.pick.people', { count: p.participantCount })}</>}
                          {p.here && <> · {t('movein.pick.here')}</>}
                        </span>
                      </label>
                    ))}
                  </fieldset>
                  <label class="choice">
                    <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} />
                    <span>{t('movein.pick.dryRun')}</span>
                  </label>
                  <RefusalSummary error={startError} />
                  <Button type="submit" disabled={busy !== ''}>
                    {busy === 'start' ? t('movein.pick.starting') : dryRun ? t('movein.pick.startDry') : t('movein.pick.start')}
                  </Button>
                </form>
              )}
            </section>
          )}
        </>
      )}
    </>
  );
}
