// Affiliate applications (AF1): the review queue, pending first by default, filtered by status in
// the address bar and paged by offset with the filter's total.
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { Link } from '../router.tsx';
import { ErrorSummary } from '../ui.tsx';
import { t, when } from '../i18n/index.ts';
import { AffiliatePage, affiliatePath, campaignPath, StatusBadge, TableWrap, StatusFilter, statusParam } from './affiliate-kit.tsx';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import type { affiliateApplication } from '../../shared/schemas/affiliate.ts';
import type { z } from 'zod';

type Application = z.infer<typeof affiliateApplication>;
type Page = { applications: Application[]; total: number };
const STATUSES = ['PENDING', 'APPROVED', 'DENIED'] as const;

/** The applicant's name, else email, else the application id. */
function applicantName(a: Application): string {
  return [a.firstName, a.lastName].filter(Boolean).join(' ') || a.email || a.id;
}

function List({ c }: { c: Campaign }) {
  const status = statusParam(STATUSES, 'PENDING');
  const [pages, setPages] = useState<Page[]>([]);
  const [error, setError] = useState<unknown>(null);
  const load = async (offset: number, fresh: boolean) => {
    setError(null);
    try {
      const page = await api<Page>('GET', `${campaignPath(c.id)}/affiliate-applications${query({ limit: 20, offset, status })}`);
      setPages((p) => (fresh ? [page] : [...p, page]));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    setPages([]);
    void load(0, true);
  }, [c.id, status]);
  const rows = pages.flatMap((p) => p.applications);
  const total = pages.at(-1)?.total ?? 0;
  return (
    <>
      <p class="hint">{t('apps.help')}</p>
      <StatusFilter id="application-status" statuses={STATUSES} value={status} prefix="astatus" />
      <ErrorSummary error={error} />
      {pages.length > 0 && !rows.length && <p>{t('aff.none')}</p>}
      {rows.length > 0 && (
        <TableWrap label={t('apps.table')}>
          <table>
            <caption>
              {t('apps.table')} ({t('aff.ofTotal', { shown: rows.length, total })})
            </caption>
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
          </table>
        </TableWrap>
      )}
      {rows.length < total && (
        <button type="button" class="secondary" onClick={() => load(rows.length, false)}>
          {t('aff.more')}
        </button>
      )}
    </>
  );
}

export default function Applications({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <AffiliatePage programId={id} title={t('apps.title')}>
      {(c) => <List c={c} />}
    </AffiliatePage>
  );
}
