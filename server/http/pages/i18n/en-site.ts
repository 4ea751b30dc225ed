// The landing page and the development mail outbox (issue #23).

export const enSite = {
  'site.title': 'refloop: referral and affiliate programs',
  'site.heading': 'refloop',
  'site.intro': 'Self-hosted referral and affiliate programs, wire-compatible with the GrowSurf REST API v2.',
  'site.rest': 'REST API: {url} ({link})',
  'site.openapi': 'OpenAPI document',
  'site.participantApi': 'Participant API: {url}',
  'site.owner': '{signup} or {signin} as a program owner',
  'site.signin': 'sign in',
  'site.outbox': '{link} (development only)',
  'mailOutbox.title': 'Mail outbox',
  'mailOutbox.pageTitle': 'Mail outbox, page {page} of {pages}',
  'mailOutbox.none': 'No messages yet.',
  'mailOutbox.noneTo': 'No messages to {to} yet.',
  'mailOutbox.count': { one: '{count} message, newest first.', other: '{count} messages, newest first.' },
  'mailOutbox.countTo': { one: '{count} message to {to}, newest first.', other: '{count} messages to {to}, newest first.' },
  'mailOutbox.showing': 'Showing {first}–{last} (page {page} of {pages}).',
  'mailOutbox.pages': 'Outbox pages',
  'mailOutbox.previous': 'Previous',
  'mailOutbox.next': 'Next',
  'mailOutbox.meta': 'To {to} · {time} · {status}',
} as const;
