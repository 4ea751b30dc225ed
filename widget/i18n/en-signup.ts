// English messages only the sign-up form shows, with the words the login, welcome and application
// forms share with it (issue #32): part of the one catalogue, registered by the chunks that show them
// (panels/signup.tsx and those), so a signed-in participant's first load does not carry them (issue #24).
import { extend } from './index.ts';

/** The sign-up form's own English messages. */
export const enSignup = {
  'signup.email': 'Email',
  'signup.firstName': 'First name',
  'signup.lastName': 'Last name',
  'login.button': 'Email me a sign-in link',
  'signup.referred': 'You were invited by a friend. Sign up to claim your reward.',
  'signup.referredHeading': 'Your friend sent you a gift',
  'signup.pre': 'Invite your friends and earn rewards.',
  'signup.submit': 'Get my link',
  'signup.gdpr': 'I agree to receive emails about this program.',
  'signup.existing': 'This email already belongs to a participant. Sign in to see your referral link.',
  'login.prompt': 'Already signed up?',
  'login.link': 'Sign in',
} as const;

extend('en', enSignup);
