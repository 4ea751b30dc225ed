// The window's secondary panels, one chunk: invite form, leaderboard, rewards, referral status
// list and referral summary. The first panel (sign-up or share) ships with the window itself.
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { ctx, state } from '../state.ts';
import { invite, leaderboard, markRewardsRead, referralSummary, referrals } from '../ops.ts';
import { Async, Tiles, day, money } from '../kit.tsx';
import { Field } from '../field.tsx';
import { Note, Section, copy, dtext, errorText, shareLink } from '../ui.tsx';

const BOARDS = ['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH'] as const;

// Avatars and reward images (issue #24), styled in this chunk.
const CSS = `.av{display:inline-grid;place-items:center;width:28px;height:28px;border-radius:50%;color:#fff;font-size:12px;font-weight:600;margin-right:8px;vertical-align:middle;flex:none}
.rw{display:flex;gap:8px;align-items:flex-start}.ri{width:40px;height:40px;object-fit:cover;border-radius:var(--r);flex:none}`;

/** Initials for a leaderboard row: the name's first two words, else the (masked) email's first letter. */
export function initials(name: string | null, email?: string | null): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  const s = words.length ? words.slice(0, 2).map((w) => [...w][0]).join('') : [...(email ?? '')][0] ?? '?';
  return s.toUpperCase();
}

/**
 * A leaderboard avatar by `design.participantAvatarStyle` (rest-v2 §2.18; missing or unknown reads
 * INITIALS): GRADIENT draws a gradient without letters; INITIALS, CHARACTERS and ANIMALS draw the
 * initials (no character or animal art ships). The colour comes from the text, dark enough for white
 * letters; decorative, since the name is beside it.
 */
export function Avatar({ name, email, style }: { name: string | null; email?: string | null; style?: string }) {
  const key = name || email || '';
  let h = 0;
  for (const c of key) h = (h * 31 + c.charCodeAt(0)) % 360;
  const bg = style === 'GRADIENT' ? `linear-gradient(135deg,hsl(${h},60%,35%),hsl(${(h + 90) % 360},60%,30%))` : `hsl(${h},50%,30%)`;
  return (
    <span class="av" aria-hidden="true" style={{ background: bg }}>
      {style === 'GRADIENT' ? '' : initials(name, email)}
    </span>
  );
}

/** Leaderboard: the payload's first page of the design's default board; a selector switches boards (ML1). */
export function Leaderboard() {
  const [board, setBoard] = useState<string | null>(null);
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.leaderboard;
  const first = s.win.leaderboard;
  return (
    <Section title={copy(d?.title, 'leaderboard.title')}>
      <style>{CSS}</style>
      <label>
        {t('leaderboard.period')}
        <select value={board ?? first?.leaderboardType ?? 'ALL_TIME'} onChange={(e) => setBoard((e.currentTarget as HTMLSelectElement).value)}>
          {BOARDS.map((b) => (
            <option key={b} value={b}>
              {copy(d?.selectorLabels?.[b], `leaderboard.${b}`)}
            </option>
          ))}
        </select>
      </label>
      <Async
        key={board}
        load={() => (first && (!board || board === first.leaderboardType) ? Promise.resolve(first) : leaderboard(board ? { leaderboardType: board } : {}))}
        empty={(b) => !b.rows.length}
        emptyText={copy(d?.emptyState, 'leaderboard.empty')}
      >
        {(b) => (
          <table>
            <thead>
              <tr>
                <th scope="col">{copy(d?.rankLabel, 'leaderboard.rank')}</th>
                <th scope="col">{copy(d?.nameLabel, 'leaderboard.name')}</th>
                <th scope="col">{copy(d?.scoreLabel, 'leaderboard.score')}</th>
              </tr>
            </thead>
            <tbody>
              {b.rows.map((r, i) => (
                <tr key={i} aria-current={r.isYou ? 'true' : undefined}>
                  <td>{r.rank ?? '—'}</td>
                  <td>
                    <Avatar name={r.name} email={r.email} style={s.win.design?.participantAvatarStyle} />
                    {r.name ?? r.email ?? t('leaderboard.anonymous')}
                    {r.isYou && <strong> ({copy(d?.youLabel, 'leaderboard.you')})</strong>}
                  </td>
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

/**
 * The program's starter rewards (rest-v2 §3.2) the window payload lists with `isStarter` until the
 * owner edits them: switched off, so nothing is earned yet, which the rewards panel says (issue #24).
 */
export const starters = <R extends { isStarter?: boolean }>(rewards: R[]) => rewards.filter((r) => r.isStarter);

/**
 * Rewards with unread markers and a mark-all-read button (clears the badge). Each names what was
 * earned (the side's description, an amount when there is one), who it was for (the referred friend,
 * from the participant's referral list) and what its status means, in words (issue #21).
 */
export function Rewards() {
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.rewards;
  const configs = new Map(s.win.rewards.map((r) => [r.id, r]));
  const load = () =>
    Promise.all([
      ctx.api.rewards({ limit: 50 }),
      // Names of the friends: a list that fails to load only leaves the rewards unnamed.
      referrals({ limit: 50 }).then(
        (l) => new Map(l.referrals.map((r) => [r.id, [r.firstName, r.lastName].filter(Boolean).join(' ') || r.email])),
        () => new Map<string, string>(),
      ),
    ]);
  return (
    <Section title={copy(d?.title, 'rewards.title')}>
      <style>{CSS}</style>
      {dtext(d?.description) && <p class="m">{dtext(d?.description)}</p>}
      {starters(s.win.rewards).map((r) => (
        <p key={r.id} class="ban" data-grsf-starter={r.id}>
          {t('rewards.starter', { reward: r.description || r.title || t('rewards.reward') })}
        </p>
      ))}
      <Async load={load} empty={([l]) => !l.rewards.length} emptyText={copy(d?.emptyState, 'rewards.empty')}>
        {([l, names], reload) => (
          <>
            <ul>
              {l.rewards.map((r) => {
                const c = configs.get(r.rewardId);
                const what = (!r.isReferrer && c?.referralDescription) || c?.description || c?.title || t('rewards.reward');
                const friend = r.referredId && names.get(r.referredId);
                const status = r.status === 'PENDING' && !r.approved ? 'UNAPPROVED' : r.status;
                // The reward's own image, else the design's rewards icon when it is an image; decorative (the text names the reward).
                const img = c?.imageUrl || (d?.icon?.type === 'IMAGE' && d.icon.imageUrl);
                return (
                  <li key={r.id}>
                    <span class="rw">
                      {img && <img class="ri" src={img} alt="" width={40} height={40} loading="lazy" />}
                      <span>
                        <b>{r.amount != null ? `${money(r.amount, r.currencyISO ?? undefined)}: ${what}` : what}</b> {r.unread && <span class="new">{t('rewards.new')}</span>}
                        <br />
                        <span class="m">{c?.type === 'LEADERBOARD' ? t('rewards.forLeaderboard') : r.isReferrer ? (friend ? t('rewards.for', { name: friend }) : t('rewards.forReferral')) : t('rewards.asFriend')}</span>
                      </span>
                    </span>
                    <span class="m">{t(`rewards.${status}` as MessageKey)}</span>
                  </li>
                );
              })}
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
    <Section title={copy(d?.title, 'referrals.title')}>
      <Async load={() => referrals({ limit: 50 })} empty={(l) => !l.referrals.length} emptyText={copy(d?.emptyState, 'referrals.empty')}>
        {(l) => (
          <ul>
            {l.referrals.map((r) => (
              <li key={r.id}>
                <span>
                  {[r.firstName, r.lastName].filter(Boolean).join(' ')} <span class="m">{r.email}</span>
                </span>
                <span class="m">
                  {copy(d?.statusLabels?.[r.referralStatus as 'CREDIT_PENDING'], `referrals.${r.referralStatus}` as MessageKey)} · {day(r.createdAt)}
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
  const d = s.win.design?.referralSummary;
  // The design's four tiles keep their labels and visibility; the other counts have no design entry.
  const tile = (k: 'clicks' | 'leads' | 'referrals' | 'rewards', key: MessageKey, v: number): Array<[string, number]> =>
    d?.tiles?.[k]?.isVisible === false ? [] : [[copy(d?.tiles?.[k]?.label, key), v]];
  return (
    <Section title={copy(d?.title, 'summary.title')}>
      <Async load={referralSummary}>
        {(m) => (
          <Tiles
            items={[
              ...tile('clicks', 'summary.clicks', m.clicks),
              ...tile('leads', 'summary.leads', m.leads),
              ...tile('referrals', 'summary.referrals', m.referrals),
              ...tile('rewards', 'summary.rewardsEarned', m.rewardsEarned),
              [t('summary.pendingRewards'), m.pendingRewards],
              [t('summary.invitesSent'), m.invitesSent],
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
      const res = await invite({ emailAddresses, messageText: data.message!, ...(data.subject ? { subjectText: data.subject } : {}) });
      setMsg(copy(d?.successText, 'invite.sent', { count: res.invitesSent }));
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
        <Field name="emails" label={t('invite.emails')} required placeholder={dtext(d?.placeholder) || undefined} />
        <Field name="subject" label={t('invite.subject')} value={copy(s.win.design?.share?.emailSubject, 'share.subject')} />
        <Field name="message" label={t('invite.message')} required multiline value={t('invite.defaultMessage', { url: shareLink() })} />
        <button type="submit" disabled={busy}>
          {copy(d?.buttonText, 'invite.submit')}
        </button>
      </form>
      {msg && <Note text={msg} />}
    </Section>
  );
}
