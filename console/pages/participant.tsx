// One participant (P4): profile, edit (P5), fraud state, referral credit, email, delete
// (participant-actions.tsx), and their referrals, rewards or commissions and activity
// (participant-lists.tsx). Every change goes through the REST operation; a refusal shows its message.
import { CopyButton } from '../copy.tsx';
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { Link } from '../router.tsx';
import { announce, Async, ErrorSummary, Field, PageTitle } from '../ui.tsx';
import { num, t, when, type MessageKey } from '../i18n/index.ts';
import { rememberProgramType } from '../program-type.ts';
import type { Participant } from '../../shared/schemas/participant.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import { DeleteParticipant, EmailParticipant, FraudState, ReferralCredit } from './participant-actions.tsx';
import { Activity, Commissions, Referrals, Rewards } from './participant-lists.tsx';
import { Codes } from './participant-codes.tsx';

/** What the page's sections share: the program, the participant and how to reread them. */
export interface ParticipantCtx {
  c: Campaign;
  p: Participant;
  /** `/campaign/{id}/participant/{participantId}` */
  path: string;
  /** The console address of the participants list. */
  listHref: string;
  /** Shows the participant P5 (or a reread) answered. */
  replace: (p: Participant) => void;
}

function fullName(p: Participant): string {
  return [p.firstName, p.lastName].filter(Boolean).join(' ');
}

function Profile({ x }: { x: ParticipantCtx }) {
  const { p, c } = x;
  const base = `/console/programs/${encodeURIComponent(c.id)}/participants/`;
  const meta = Object.entries(p.metadata);
  return (
    <section aria-labelledby="pt-profile">
      <h2 id="pt-profile">{t('pt.profile')}</h2>
      <dl class="facts">
        <dt>{t('col.email')}</dt>
        <dd>{p.email}</dd>
        <dt>{t('col.name')}</dt>
        <dd>{fullName(p) || t('pt.none')}</dd>
        <dt>{t('pt.field.joined')}</dt>
        <dd>{when(p.createdAt)}</dd>
        <dt>{t('pt.field.shareUrl')}</dt>
        <dd class="wrap share-url">
          <span>{p.shareUrl}</span> <CopyButton text={p.shareUrl} label={t('pt.copyLink')} />
        </dd>
        <dt>{t('pt.field.referrer')}</dt>
        <dd>{p.referrer ? <Link href={base + encodeURIComponent(p.referrer.id)}>{p.referrer.email}</Link> : t('pt.none')}</dd>
        <dt>{t('pt.field.status')}</dt>
        <dd>{p.referralStatus ? t(`pt.status.${p.referralStatus}` as MessageKey) : t('pt.none')}</dd>
        <dt>{t('pt.field.referrals')}</dt>
        <dd>{num(p.referralCount)}</dd>
        {c.type === 'AFFILIATE' && (
          <>
            <dt>{t('pt.field.affiliate')}</dt>
            <dd>{p.isAffiliate ? (p.affiliateStatus ?? t('pt.none')) : t('pt.affiliate.false')}</dd>
          </>
        )}
        <dt>{t('pt.field.vanity')}</dt>
        <dd>{p.vanityKeys.length ? p.vanityKeys.join(', ') : t('pt.none')}</dd>
        <dt>{t('pt.field.subscribed')}</dt>
        <dd>{t(p.unsubscribed ? 'pt.unsubscribed' : 'pt.subscribed')}</dd>
        <dt>{t('pt.field.notes')}</dt>
        <dd>{p.notes || t('pt.none')}</dd>
        <dt>{t('pt.field.metadata')}</dt>
        <dd>
          {meta.length ? (
            <ul class="plain">
              {meta.map(([k, v]) => (
                <li key={k}>
                  <code>{k}</code>: {v}
                </li>
              ))}
            </ul>
          ) : (
            t('pt.none')
          )}
        </dd>
      </dl>
    </section>
  );
}

/** P5: first and last name and metadata (keys removed from the JSON are sent as null). */
function Edit({ x }: { x: ParticipantCtx }) {
  const { p } = x;
  const [first, setFirst] = useState(p.firstName ?? '');
  const [last, setLast] = useState(p.lastName ?? '');
  const [meta, setMeta] = useState(JSON.stringify(p.metadata, null, 2));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(meta.trim() || '{}');
    } catch {
      parsed = null;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return setError(new Error(t('pt.metadataBad')));
    const patch: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
    for (const k of Object.keys(p.metadata)) if (!(k in patch)) patch[k] = null;
    const body: Record<string, unknown> = { firstName: first, lastName: last };
    if (Object.keys(patch).length) body.metadata = patch;
    setBusy(true);
    try {
      x.replace(await api<Participant>('POST', x.path, body));
      announce(t('pt.saved'));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="pt-edit">
      <h2 id="pt-edit">{t('pt.edit')}</h2>
      <form onSubmit={save}>
        <ErrorSummary error={error} />
        <div class="pt-pair">
          <Field id="pt-first" label={t('pt.firstName')}>
            <input id="pt-first" value={first} maxLength={255} autoComplete="off" onInput={(e) => setFirst(e.currentTarget.value)} />
          </Field>
          <Field id="pt-last" label={t('pt.lastName')}>
            <input id="pt-last" value={last} maxLength={255} autoComplete="off" onInput={(e) => setLast(e.currentTarget.value)} />
          </Field>
        </div>
        <Field id="pt-meta" label={t('pt.metadataJson')} hint={t('pt.metadataHint')}>
          <textarea id="pt-meta" rows={4} aria-describedby="pt-meta-hint" value={meta} onInput={(e) => setMeta(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy}>
          {t('pt.save')}
        </button>
      </form>
    </section>
  );
}

function View({ c, initial }: { c: Campaign; initial: Participant }) {
  const [p, setP] = useState(initial);
  const [version, setVersion] = useState(0);
  const x: ParticipantCtx = {
    c,
    p,
    path: `/campaign/${encodeURIComponent(c.id)}/participant/${encodeURIComponent(p.id)}`,
    listHref: `/console/programs/${encodeURIComponent(c.id)}/participants`,
    replace: (next) => {
      setP(next);
      setVersion((v) => v + 1);
    },
  };
  const writer = can('participant:write');
  return (
    <>
      <PageTitle>{fullName(p) ? `${fullName(p)} (${p.email})` : p.email}</PageTitle>
      <p>
        <Link href={x.listHref}>← {t('pt.back')}</Link>
      </p>
      <div class="pt-grid">
        <div>
          <Profile x={x} />
          <FraudState x={x} />
          {c.type === 'REFERRAL' && <ReferralCredit x={x} />}
          {writer ? <Edit key={version} x={x} /> : <p>{t('pt.readOnly')}</p>}
          {writer && <EmailParticipant x={x} />}
          {can('participant:delete') && <DeleteParticipant x={x} />}
        </div>
        <div>
          <Referrals x={x} />
          <Codes x={x} />
          {c.type === 'AFFILIATE' ? <Commissions x={x} key={`c${version}`} /> : <Rewards x={x} key={`r${version}`} />}
          <Activity x={x} key={`a${version}`} />
        </div>
      </div>
    </>
  );
}

export default function ParticipantPage({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const who = params.participantId!;
  const load = async () => {
    const c = await api<Campaign>('GET', `/campaign/${encodeURIComponent(id)}`);
    rememberProgramType(c.id, c.type);
    const p = await api<Participant>('GET', `/campaign/${encodeURIComponent(id)}/participant/${encodeURIComponent(who)}`);
    return { c, p };
  };
  return (
    <Async depKey={`${id}/${who}`} load={load}>
      {({ c, p }) => (
        <View c={c} initial={p} />
      )}
    </Async>
  );
}
