// English, the base language: the part of the catalogue the window's first load needs (window,
// states, tab titles, the share words other chunks share too). The first panels' own
// messages travel with their chunks: `en-signup.ts` (the sign-up form, and the login, welcome and
// application forms' shared words) and `en-share.ts` (the share
// panel and its channel names); the secondary panels' are in `en-panels.ts`, registered by those
// panels' chunks. Together they are complete; every other
// language may be partial, and `t` falls back to English key by key.

/** The English messages of the first load; `{name}` placeholders are filled by `t`, and a count's message has a text per plural category. */
export const en = {
  'window.title': 'Refer friends',
  'window.titleAffiliate': 'Partner portal',
  'window.close': 'Close',
  'window.nav': 'Sections',
  'window.back': 'Back',
  'state.loading': 'Loading…',
  'state.error': 'Something went wrong. Please try again.',
  'state.retry': 'Try again',
  'state.unavailable': 'This is not available right now.',
  'state.signedOut': 'Sign up to see this.',
  'signup.title': 'Join and share',
  'referrer.fallback': 'A friend',
  'share.title': 'Share your link',
  'share.copied': 'Copied!',
  'share.subject': 'You are invited',
  'invite.title': 'Invite by email',
  'leaderboard.title': 'Leaderboard',
  'rewards.title': 'Rewards',
  'referrals.title': 'Your referrals',
  'summary.title': 'Your progress',
  'affiliate.title': 'Affiliate summary',
  'commissions.title': 'Commissions',
  'payouts.title': 'Payouts',
  'payoutSettings.title': 'Payout settings',
  'tax.title': 'Tax information',
  'resources.title': 'Resources',
  'traffic.title': 'Traffic',
  'progress.title': 'Your progress',
  'application.title': 'Apply to become an affiliate',
  'window.home': 'Home',
  'home.earned': 'Earned so far',
  'rewards.reward': 'Reward',
  'affiliate.upcoming': 'Upcoming payout',
  'progress.count': { one: 'referral so far', other: 'referrals so far' },
  'progress.next': { one: '{count} more referral to earn {reward}', other: '{count} more referrals to earn {reward}' },
  'progress.bar': 'Progress toward your next milestone',
  'progress.of': { one: '{done} of {count} referral', other: '{done} of {count} referrals' },
  'progress.all': 'You have earned every reward on offer. Thank you!',
  'settings.logout': 'Sign out',
  'badge.label': { one: '{count} unread notification', other: '{count} unread notifications' },
} as const;
