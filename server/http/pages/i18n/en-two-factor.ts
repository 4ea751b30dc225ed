// The sign-in page's second step (issue #35): the authenticator or recovery code.

export const enTwoFactor = {
  'code.title': 'Two-factor sign-in',
  'code.intro': 'Enter the 6-digit code your authenticator app shows for refloop. Lost your phone? Enter one of your recovery codes instead; each works once.',
  'code.label': 'Authentication code or recovery code',
  'code.remember': 'Remember this browser for 30 days',
  'code.submit': 'Continue',
  'code.wrong': 'That code is not right. Enter the code your app shows now, or an unused recovery code.',
  'code.locked': 'Too many wrong codes. Try again in {minutes} minutes.',
  'code.startAgain': 'Sign in with a different account',
  'keys.reauth': 'Creating a key needs a recent sign-in: sign out and sign in again, then create it within five minutes.',
} as const;
