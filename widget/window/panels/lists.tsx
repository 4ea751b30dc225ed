// The window's secondary panels, one chunk: invite form, leaderboard, rewards, referral status
// list and referral summary. The first panel (sign-up or share) ships with the window itself.
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { ctx, markRewardsRead, sendInvites, state } from '../state.ts';
import { Async, Field, Note, Section, Tiles, copy, day, errorText, shareLink } from '../ui.tsx';

const BOARDS = ['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH'] as const;

/** Leaderboard: the payload's first page of the design's default board; a selector switches boards (ML1). */
export function Leaderboard() {
  const [board, setBoard] = useState<string | null>(null);
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.leaderboard;
  const first = s.win.leaderboard;
  return (
    <Section title={d?.title || t('leaderboard.title')}>
      <label>
        {t('leaderboard.period')}
        <select value={board ?? first?.leaderboardType ?? 'ALL_TIME'} onChange={(e) => setBoard((e.currentTarget as HTMLSelectElement).value)}>
          {BOARDS.map((b) => (
            <option key={b} value={b}>
              {d?.selectorLabels?.[b] || t(`leaderboard.${b}`)}
            </option>
          ))}
        </select>
      </label>
      <Async
        key={board}
        load={() => (first && (!board || board === first.leaderboardType) ? Promise.resolve(first) : ctx.api.leaderboard(board ? { leaderboardType: board } : {}))}
        empty={(b) => !b.rows.length}
        emptyText={d?.emptyState || t('leaderboard.empty')}
      >
        {(b) => (
          <table>
            <thead>
              <tr>
                <th scope="col">{d?.rankLabel || t('leaderboard.rank')}</th>
                <th scope="col">{d?.nameLabel || t('leaderboard.name')}</th>
                <th scope="col">{d?.scoreLabel || t('leaderboard.score')}</th>
              </tr>
            </thead>
            <tbody>
              {b.rows.map((r, i) => (
                <tr key={i}>
                  <td>{r.rank ?? '—'}</td>
                  <td>{r.name ?? r.email ?? t('leaderboard.anonymous')}</td>
                  <td>{r.score}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
    </Section>
  );
}

/** Rewards with unread markers and a mark-all-read button (clears the badge). */
export function Rewards() {
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.rewards;
  const titles = new Map(s.win.rewards.map((r) => [r.id, r.title]));
  return (
    <Section title={d?.title || t('rewards.title')}>
      <Async load={() => ctx.api.rewards({ limit: 50 })} empty={(l) => !l.rewards.length} emptyText={d?.emptyState || t('rewards.empty')}>
        {(l, reload) => (
          <>
            <ul>
              {l.rewards.map((r) => (
                <li key={r.id}>
                  <span>
                    {titles.get(r.rewardId) || t('rewards.reward')} {r.unread && <span class="new">{t('rewards.new')}</span>}
                  </span>
                  <span class="m">{t(`rewards.${r.status}` as MessageKey)}</span>
                </li>
              ))}
            </ul>
            {l.rewards.some((r) => r.unread) && (
              <button type="button" class="s" onClick={() => markRewardsRead().then(reload, reload)}>
                {t('rewards.markRead')}
              </button>
            )}
          </>
        )}
      </Async>
    </Section>
  );
}

/** The participant's referrals and invitations; emails arrive masked from the server and are shown as text. */
export function ReferralStatus() {
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.referralStatus;
  return (
    <Section title={d?.title || t('referrals.title')}>
      <Async load={() => ctx.api.referrals({ limit: 50 })} empty={(l) => !l.referrals.length} emptyText={d?.emptyState || t('referrals.empty')}>
        {(l) => (
          <ul>
            {l.referrals.map((r) => (
              <li key={r.id}>
                <span>
                  {[r.firstName, r.lastName].filter(Boolean).join(' ')} <span class="m">{r.email}</span>
                </span>
                <span class="m">
                  {d?.statusLabels?.[r.referralStatus] || t(`referrals.${r.referralStatus}` as MessageKey)} · {day(r.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Section>
  );
}

/** Referral summary tiles (referral programs). */
export function ReferralSummary() {
  const s = state.value;
  if (s.status !== 'ready') return null;
  return (
    <Section title={s.win.design?.referralSummary?.title || t('summary.title')}>
      <Async load={ctx.api.referralSummary}>
        {(m) => (
          <Tiles
            items={[
              ['summary.clicks', m.clicks],
              ['summary.leads', m.leads],
              ['summary.referrals', m.referrals],
              ['summary.rewardsEarned', m.rewardsEarned],
              ['summary.pendingRewards', m.pendingRewards],
              ['summary.invitesSent', m.invitesSent],
            ]}
          />
        )}
      </Async>
    </Section>
  );
}

/** Invite form: email addresses, subject and message sent through sendInvites. */
export function Invite() {
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.share?.invite;
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const emailAddresses = data.emails!.split(/[\s,;]+/).filter(Boolean);
    setBusy(true);
    try {
      const res = await sendInvites({ emailAddresses, messageText: data.message!, ...(data.subject ? { subjectText: data.subject } : {}) });
      setMsg(t('invite.sent', { count: res.invitesSent }));
      form.reset();
    } catch (err) {
      setMsg(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title={copy(d?.title, 'invite.title')}>
      <form onSubmit={onSubmit}>
        <Field name="emails" label={t('invite.emails')} required placeholder={d?.placeholder} />
        <Field name="subject" label={t('invite.subject')} value={t('share.subject')} />
        <Field name="message" label={t('invite.message')} required multiline value={t('invite.defaultMessage', { url: shareLink() })} />
        <button type="submit" disabled={busy}>
          {copy(d?.buttonText, 'invite.submit')}
        </button>
      </form>
      {msg && <Note text={msg} />}
    </Section>
  );
}
