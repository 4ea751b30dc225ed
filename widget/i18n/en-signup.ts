// English messages only the sign-up form shows: part of the one catalogue, registered by the sign-up
// form's chunk (panels/signup.tsx), so a signed-in participant's first load does not carry them (issue #24).
import { extend } from './index.ts';

/** The sign-up form's own English messages. */
export const enSignup = {
  'signup.pre': 'Invite your friends and earn rewards.',
  'signup.submit': 'Get my link',
  'signup.gdpr': 'I agree to receive emails about this program.',
  'signup.existing': 'This email already belongs to a participant. Sign in to see your referral link.',
  'login.prompt': 'Already signed up?',
  'login.link': 'Sign in',
} as const;

extend('en', enSignup);
