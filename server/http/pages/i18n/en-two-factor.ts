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
  'reveal.title': 'Confirm it is you to see your new API key',
  'reveal.body': 'Your new API key is waiting. Enter your password to show it (once).',
  'reveal.bodyCode': 'Your new API key is waiting. Enter your password and a code from your authenticator app (or a recovery code) to show it (once).',
  'reveal.submit': 'Show the key',
  'reveal.wrongPassword': 'That password is not right.',
  'reveal.elsewhere': 'Your new API key is waiting on the API keys page; it is shown once you confirm it is you.',
  'reveal.link': 'Go to API keys',
  'keyReauth.title': 'Confirm it is you to create the key',
  'keyReauth.body': 'Creating an API key shows its secret, so it needs your password again. The key is created as soon as you confirm.',
  'keyReauth.bodyCode': 'Creating an API key shows its secret, so it needs your password and a code from your authenticator app (or a recovery code) again. The key is created as soon as you confirm.',
  'keyReauth.submit': 'Confirm and create the key',
  'keyReauth.cancel': 'Back to API keys without creating it',
} as const;
