// The emails document's shared settings (rest-v2 §2.19 `settings`) as data for settings-spec.tsx,
// and the transactional templates (repeated from the schema, which brings zod; the unit test
// test/console/settings-enums.test.ts fails when they drift).
import type { Section } from './settings-spec-types.ts';

/** Templates always sent when their event happens (TRANSACTIONAL_TEMPLATES). */
export const TRANSACTIONAL_TEMPLATES = ['loginLink', 'paypalEmailConfirmation', 'taxInfoMissing', 'taxInfoReceived', 'taxInfoApproved', 'taxInfoRejected'] as const;

/** Sender, postal address and look, shared by every email; paths are inside `settings`. */
export const EMAIL_SETTINGS_SECTIONS: Section[] = [
  {
    id: 'sender',
    title: 'es.sender',
    fields: [
      { k: 'text', p: 'sender.fromName', n: true, h: true },
      { k: 'email', p: 'sender.replyToEmail', n: true, h: true },
    ],
  },
  {
    id: 'contact',
    title: 'es.contact',
    fields: [
      { k: 'text', p: 'contact.companyName', n: true, h: true },
      { k: 'text', p: 'contact.addressLine1', n: true },
      { k: 'text', p: 'contact.addressLine2', n: true },
      { k: 'text', p: 'contact.city', n: true },
      { k: 'text', p: 'contact.state', n: true },
      { k: 'text', p: 'contact.postalCode', n: true },
      { k: 'text', p: 'contact.country', n: true },
    ],
  },
  {
    id: 'look',
    title: 'es.look',
    fields: [
      { k: 'url', p: 'design.logoUrl', n: true, h: true },
      { k: 'color', p: 'design.primaryColor' },
      { k: 'color', p: 'design.backgroundColor' },
      { k: 'color', p: 'design.textColor' },
      { k: 'long', p: 'design.footerText', n: true, h: true },
    ],
  },
];
