// Affiliate applications (AF1): the review queue, pending first by default, filtered by status in
// the address bar and paged by offset with the filter's total.
import { useEffect } from 'preact/hooks';
import { can, query } from '../api.ts';
import { Link } from '../router.tsx';
import { ErrorSummary, usePages } from '../ui.tsx';
import { t, when } from '../i18n/index.ts';
import { AffiliatePage, affiliatePath, campaignPath, EmptyListOf, StatusBadge, ListTable, StatusFilter } from './affiliate-kit.tsx';
import { ButtonLink } from '../components.tsx';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import { CountedStates, noneAtAll, type Counts } from '../state-counts.tsx';
import type { affiliateApplication } from '../../shared/schemas/affiliate.ts';
import type { z } from 'zod';

type Application = z.infer<typeof affiliateApplication>;
type Page = { applications: Application[]; total: number };
const STATUSES = ['PENDING', 'APPROVED', 'DENIED'] as const;

/** The applicant's name, else email, else the application id. */
function applicantName(a: Application): string {
  return [a.firstName, a.lastName].filter(Boolean).join(' ') || a.email || a.id;
}

/** What a program without applications offers next: an invite, and the application settings, each for a role that may use it. */
function NoApplications({ c }: { c: Campaign }) {
  const invite = can('participant:write');
  const settings = can('program:write');
  return (
    <>
      {invite && <ButtonLink href={affiliatePath(c.id, 'invites')}>{t('apps.empty.invite')}</ButtonLink>}
      {settings && (
        <ButtonLink kind={invite ? 'secondary' : 'primary'} href={`/console/programs/${encodeURIComponent(c.id)}/settings`}>
          {t('apps.empty.settings')}
        </ButtonLink>
      )}
    </>
  );
}

function List({ c, status, counts }: { c: Campaign; status: (typeof STATUSES)[number] | ''; counts: Counts | null }) {
  const { pages, setPages, error, load } = usePages<Page, number>((offset) => `${campaignPath(c.id)}/affiliate-applications${query({ limit: 20, offset, status })}`);
  useEffect(() => {
    setPages([]);
    void load(0, true);
  }, [c.id, status]);
  const rows = pages.flatMap((p) => p.applications);
  const total = pages.at(-1)?.total ?? 0;
  return (
    <>
      <p class="hint">{t('apps.help')}</p>
      {!noneAtAll(counts) && <StatusFilter id="application-status" statuses={STATUSES} value={status} prefix="astatus" counts={counts} />}
      <ErrorSummary error={error} />
      <ListTable loaded={pages.length > 0} rows={rows.length} label={t('apps.table')} count={t('aff.ofTotal', { shown: rows.length, total })} more={rows.length < total ? () => load(rows.length, false) : undefined}
        empty={<EmptyListOf status={status} counts={counts} title={t('apps.empty.title')} text={t('apps.empty.text')} action={(can('participant:write') || can('program:write')) && <NoApplications c={c} />} />}
      >
        <thead>
          <tr>
            <th scope="col">{t('afcol.affiliate')}</th>
            <th scope="col">{t('col.status')}</th>
            <th scope="col">{t('afcol.risk')}</th>
            <th scope="col">{t('afcol.submitted')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id}>
              <th scope="row">
                <Link href={affiliatePath(c.id, `applications/${encodeURIComponent(a.id)}`)}>{a.email ?? a.id}</Link>
                {(a.firstName || a.lastName) && <span class="sub">{applicantName(a)}</span>}
              </th>
              <td>
                <StatusBadge prefix="astatus" status={a.status} />
              </td>
              <td>{a.riskLevel ? <StatusBadge prefix="risk" status={a.riskLevel} /> : t('risk.none')}</td>
              <td>{when(a.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </ListTable>
    </>
  );
}

export default function Applications({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <AffiliatePage programId={id} title={t('apps.title')}>
      {(c) => (
        <CountedStates url={`${campaignPath(c.id)}/affiliate-applications/counts`} states={STATUSES} preferred="PENDING" all="">
          {(status, counts) => <List c={c} status={status} counts={counts} />}
        </CountedStates>
      )}
    </AffiliatePage>
  );
}
