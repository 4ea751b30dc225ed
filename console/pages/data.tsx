// A program's data (issue #23): CSV downloads of its tables (DX1–DX4: plain links, so the browser
// downloads the streamed file with the session cookie) and the participants import (DI1): check
// the file (dry run), read every problem by line and column, then import it all at once.
import { useState } from 'preact/hooks';
import { apiText, can } from '../api.ts';
import { Link } from '../router.tsx';
import { announce, ErrorSummary, Field, PageTitle } from '../ui.tsx';
import { t } from '../i18n/index.ts';
import { programType } from '../program-type.ts';
import type { ParticipantImportReport } from '../../shared/schemas/data.ts';

const TABLES = [
  { table: 'participants', scope: 'participant:read', label: 'data.export.participants' },
  { table: 'referrals', scope: 'participant:read', label: 'data.export.referrals' },
  { table: 'rewards', scope: 'reward:read', label: 'data.export.rewards' },
  { table: 'commissions', scope: 'reward:read', label: 'data.export.commissions', type: 'AFFILIATE' },
] as const;

function Exports({ programId }: { programId: string }) {
  const type = programType(programId);
  const shown = TABLES.filter((x) => can(x.scope) && (!('type' in x) || x.type === type));
  return (
    <section aria-labelledby="export-title" class="card">
      <h2 id="export-title">{t('data.export.title')}</h2>
      <p class="hint">{t('data.export.intro')}</p>
      {shown.length === 0 ? (
        <p>{t('data.export.none')}</p>
      ) : (
        <ul class="downloads">
          {shown.map((x) => (
            <li key={x.table}>
              <a class="button" href={`/console/api/v2/campaign/${encodeURIComponent(programId)}/export/${x.table}.csv`} download={`${x.table}-${programId}.csv`}>
                {t(x.label)}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Problems({ report, file }: { report: ParticipantImportReport; file: string }) {
  return (
    <div role="alert" class="error">
      <p>{t('data.import.problems', { count: report.invalidRows })}</p>
      <div class="table-wrap" tabIndex={0} aria-labelledby="problems-caption">
        <table class="problems">
          <caption id="problems-caption">{t('data.import.problemsCaption', { file })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('data.import.line')}</th>
              <th scope="col">{t('data.import.field')}</th>
              <th scope="col">{t('data.import.problem')}</th>
            </tr>
          </thead>
          <tbody>
            {report.errors.map((e, i) => (
              <tr key={i}>
                <td>{e.line}</td>
                <td>
                  <code>{e.field}</code>
                </td>
                <td>{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Import({ programId }: { programId: string }) {
  const [file, setFile] = useState<File | null>(null);
  const [report, setReport] = useState<ParticipantImportReport | null>(null);
  const [done, setDone] = useState<ParticipantImportReport | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'' | 'check' | 'import'>('');
  const path = `/campaign/${encodeURIComponent(programId)}/import/participants`;

  const send = async (dryRun: boolean) => {
    if (!file) return setError(new Error(t('data.import.chooseFile')));
    setBusy(dryRun ? 'check' : 'import');
    setError(null);
    try {
      const r = await apiText<ParticipantImportReport>('POST', `${path}${dryRun ? '?dryRun=true' : ''}`, await file.text(), 'text/csv');
      if (dryRun) setReport(r);
      else {
        setReport(null);
        setDone(r);
        announce(t('data.import.done', { count: r.created }));
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy('');
    }
  };

  const onFile = (e: Event) => {
    setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null);
    setReport(null);
    setDone(null);
    setError(null);
  };

  return (
    <section aria-labelledby="import-title" class="card">
      <h2 id="import-title">{t('data.import.title')}</h2>
      <p class="hint" id="import-hint">
        {t('data.import.intro')}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send(true);
        }}
      >
        <Field id="import-file" label={t('data.import.file')}>
          <input id="import-file" type="file" accept=".csv,text/csv" aria-describedby="import-hint" onChange={onFile} />
        </Field>
        <button type="submit" disabled={busy !== ''}>
          {busy === 'check' ? t('data.import.checking') : t('data.import.check')}
        </button>
      </form>
      <ErrorSummary error={error} />
      {report && report.errors.length > 0 && <Problems report={report} file={file?.name ?? ''} />}
      {report && report.errors.length === 0 && (
        <div class="ready" role="status">
          <p>{report.created > 0 ? t('data.import.ready', { count: report.created, file: file?.name ?? '' }) : t('data.import.nothing')}</p>
          {report.unchanged > 0 && <p>{t('data.import.unchanged', { count: report.unchanged })}</p>}
          {report.created > 0 && (
            <button type="button" class="primary" disabled={busy !== ''} onClick={() => void send(false)}>
              {busy === 'import' ? t('data.import.running') : t('data.import.run', { count: report.created })}
            </button>
          )}
        </div>
      )}
      {done && (
        <div class="ready">
          <p>
            {t('data.import.done', { count: done.created })} {done.unchanged > 0 && t('data.import.unchanged', { count: done.unchanged })}
          </p>
          <Link href={`/console/programs/${encodeURIComponent(programId)}/participants`}>{t('data.import.viewList')}</Link>
        </div>
      )}
    </section>
  );
}

/** The Data page. */
export default function DataPage({ params }: { params: Record<string, string> }) {
  const programId = params.programId!;
  return (
    <>
      <PageTitle>{t('data.title')}</PageTitle>
      <Exports programId={programId} />
      {can('participant:write') && <Import programId={programId} />}
    </>
  );
}
