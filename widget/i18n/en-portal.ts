// English messages of the hosted landing page and participant portal (widget/portal), registered by
// the portal entry only: the window and its chunks never carry them.

/** The portal's English messages. */
export const enPortal = {
  'portal.signedInAs': 'Signed in as {name}',
  'portal.openPortal': 'Open your portal',
  'portal.portalHint': 'Bookmark your portal to come back to your link, referrals and rewards.',
  'portal.signupInstead': 'New here? Sign up',
  'portal.signupHeading': 'Not signed up yet?',
};
