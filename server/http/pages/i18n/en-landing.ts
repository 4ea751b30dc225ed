// The hosted landing page and participant portal's own words (issue #24); everything the owner
// writes comes from the design's `landingPages` and the program's reward configurations instead.
// Part of the participant pages' catalogue (./index.ts `participantText`).

/** The hosted pages' English, complete. */
export const enLanding = {
  'landing.offerTitle': 'Your offer',
  'landing.youGet': 'You get: {text}',
  'landing.friendGets': 'Your friend gets: {text}',
  'landing.join': 'Sign up',
  'landing.needsScript': 'The sign-up form needs JavaScript. Turn it on and reload this page.',
  'landing.portalNeedsScript': 'The portal needs JavaScript. Turn it on and reload this page.',
  'landing.closed': 'This program is not taking sign-ups right now.',
  'landing.haveAccount': 'Already a participant? {link}',
  'landing.signInLink': 'Sign in to your portal',
  'landing.website': 'Visit {company}',
  'landing.portalTitle': 'Referral portal',
  'landing.portalTitleAffiliate': 'Partner portal',
  'landing.portalIntro': 'Sign in with the email you signed up with to see your link, referrals and rewards.',
  'landing.portalIntroAffiliate': 'Sign in with the email you signed up with to see your link, commissions and payouts.',
  'landing.notMember': 'Not a participant yet? {link}',
  'landing.joinLink': 'Join the program',
  'landing.notFound.title': 'Page not found',
  'landing.notFound.heading': 'This page does not exist',
  'landing.notFound.body': 'The program it belongs to does not exist, was deleted, or has no hosted page.',
  'landing.analytics': 'Site analytics',
  'landing.aFriend': 'A friend',
} as const;
