// The default program emails in English (the copy every new program stores; issue #27 keeps the
// other languages beside it). Merge tags: {{firstName}}, {{shareUrl}}, {{companyName}} everywhere,
// the per-template ones as each template names them.
import type { EmailCopy } from './types.ts';

export const enEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Your {{companyName}} referral link',
      preheader: 'Share it with friends and earn rewards.',
      body: ['Hi {{firstName}},', "Thanks for joining! Here's your personal referral link. Share it with friends, and you'll earn rewards when they sign up:"],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Welcome to the {{companyName}} affiliate program',
      preheader: 'Your affiliate link is ready.',
      body: ['Hi {{firstName}},', "Welcome aboard! Here's your affiliate link. Share it wherever you recommend us, and you'll earn a commission on every sale it brings in:"],
    },
    welcomeReferred: {
      subject: 'Welcome! {{referrerFirstName}} referred you',
      preheader: 'Your referral link is ready too.',
      body: ['Hi {{firstName}},', 'Thanks for joining! {{referrerFirstName}} referred you, and you can earn rewards too by sharing your own link with friends:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Someone just opened your link',
      preheader: 'Your link got its first visit.',
      body: ['Hi {{firstName}},', 'Good news: someone just opened your link for the first time. Keep sharing it:'],
    },
    referralLinkUsed: {
      subject: 'Your referral counts',
      preheader: 'A friend you referred completed their referral.',
      body: ['Hi {{firstName}},', 'Good news: {{referredFirstName}} joined through your link, and the referral now counts for you.', 'Friends referred so far: {{referralCount}}', 'Keep sharing your link:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} signed up with your link',
      preheader: 'You referred a friend.',
      body: ['Hi {{firstName}},', '{{referredFirstName}} just signed up through your referral link. Thanks for spreading the word!'],
    },
    referredSignupAffiliate: {
      subject: 'A new customer signed up through your link',
      preheader: 'You referred someone new.',
      body: ['Hi {{firstName}},', "{{referredFirstName}} signed up through your affiliate link. You'll earn a commission when they buy."],
    },
    goalAchieved: {
      subject: 'You earned a reward!',
      preheader: 'Congratulations, a reward is yours.',
      body: ['Hi {{firstName}},', 'Congratulations, you earned a reward:', '<strong>{{rewardDescription}}</strong>', 'Thank you for spreading the word about {{companyName}}!'],
    },
    campaignEndedWinners: {
      subject: 'The program has ended: you won!',
      preheader: 'Thanks for taking part.',
      body: ['Hi {{firstName}},', 'Our referral program has ended, and you are one of the winners. We will be in touch about your reward.'],
    },
    campaignEndedNonWinners: {
      subject: 'The program has ended',
      preheader: 'Thanks for taking part.',
      body: ['Hi {{firstName}},', 'Our referral program has ended. Thank you for taking part and for spreading the word!'],
    },
    progressUpdateMonthly: {
      subject: 'Your monthly update',
      preheader: 'How your link did this month.',
      body: ['Hi {{firstName}},', 'Here is how your referral link is doing.', 'Friends referred so far: {{referralCount}}', 'Keep sharing it:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Your monthly update',
      preheader: 'How your link did this month.',
      body: ['Hi {{firstName}},', 'Here is how your affiliate link is doing.', 'Customers referred so far: {{referralCount}}', 'Keep sharing it:'],
    },
    commissionGenerated: {
      subject: 'You earned a {{commissionAmount}} commission',
      preheader: 'A sale through your link.',
      body: ['Hi {{firstName}},', 'A customer you referred just made a purchase, and you earned a commission of {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'A commission was adjusted',
      preheader: 'A refund or chargeback changed a commission.',
      body: ['Hi {{firstName}},', 'A refund or chargeback changed one of your commissions. It is now {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'A payout of {{payoutAmount}} is on its way',
      preheader: 'Your next payout is scheduled.',
      body: ['Hi {{firstName}},', 'Your payout of {{payoutAmount}} is scheduled and will be sent soon.'],
    },
    payoutSentSuccess: {
      subject: 'We sent you {{payoutAmount}}',
      preheader: 'Your payout was sent.',
      body: ['Hi {{firstName}},', 'We just sent your payout of {{payoutAmount}}. Thanks for being a great partner!'],
    },
    invite: {
      subject: '{{referrerFirstName}} invited you to {{companyName}}',
      preheader: 'A personal invitation from {{referrerFirstName}}.',
      body: ['Hi,', "{{referrerFirstName}} thinks you'll like {{companyName}} and sent you this message:", '{{messageText}}', 'Sign up with their link:'],
    },
    loginLink: {
      subject: 'Your sign-in link',
      preheader: 'Sign in with one click.',
      body: ['Hi {{firstName}},', 'Use this link to sign in. It works once and expires in 15 minutes:', '<a href="{{loginUrl}}">Sign in</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Confirm your PayPal email',
      preheader: 'One click to confirm where we send your payouts.',
      body: ['Hi {{firstName}},', 'Please confirm that payouts should go to the PayPal account {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Confirm my PayPal email</a>'],
    },
    taxInfoMissing: {
      subject: 'We need your tax information',
      preheader: 'Required before we can pay you.',
      body: ['Hi {{firstName}},', 'Before we can send your payouts, we need your tax information. It only takes a few minutes:', '<a href="{{taxInfoUrl}}">Add my tax information</a>'],
    },
    taxInfoReceived: {
      subject: 'We received your tax information',
      preheader: 'We are reviewing it.',
      body: ['Hi {{firstName}},', 'Thanks, we received your tax information and will review it shortly.'],
    },
    taxInfoApproved: {
      subject: 'Your tax information was approved',
      preheader: 'You are all set for payouts.',
      body: ['Hi {{firstName}},', 'Your tax information was approved. You are all set to receive payouts.'],
    },
    taxInfoRejected: {
      subject: 'Your tax information needs another look',
      preheader: 'Please update your tax information.',
      body: ['Hi {{firstName}},', 'We could not accept your tax information. The reason we were given:', '{{reason}}', '<a href="{{taxInfoUrl}}">Update my tax information</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Your invitation has not been accepted yet', other: '{count} of your invitations have not been accepted yet' },
    followUpPreheader: 'A friendly nudge often helps.',
    followUpGreeting: 'Hi {{firstName}},',
    followUpIntro: { one: 'You invited a friend to {{companyName}} who has not joined yet:', other: 'You invited {count} friends to {{companyName}} who have not joined yet:' },
    followUpAsk: 'A personal reminder often helps. Here is your link to share again:',
    payoutConfirmSubject: 'Confirm your {{payoutProvider}} payout details',
    payoutConfirmPreheader: 'One click to confirm where we send your payouts.',
    payoutConfirmGreeting: 'Hi {{firstName}},',
    payoutConfirmBody: 'Please confirm the {{payoutProvider}} account we should send your payouts to. The link works once and expires in 24 hours:',
    payoutConfirmButton: 'Confirm my {{payoutProvider}} details',
    affiliateInviteSubject: 'You are invited to the {{companyName}} affiliate program',
    affiliateInvitePreheader: 'Join as an affiliate and earn commissions.',
    affiliateInviteGreeting: 'Hello {{firstName}},',
    affiliateInviteBody: 'You are invited to join the {{companyName}} affiliate program. Accept the invite to get your affiliate link and start earning commissions:',
    affiliateInviteButton: 'Accept the invite',
    affiliateInviteExpires: 'The link works once and expires on {{expiresOn}}.',
  },
};
