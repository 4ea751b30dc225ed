// The default program emails in German (issue #27): informal "du", as German consumer brands write.
import type { EmailCopy } from './types.ts';

export const deEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Dein Empfehlungslink für {{companyName}}',
      preheader: 'Teile ihn mit Freunden und sichere dir Prämien.',
      body: ['Hallo {{firstName}},', 'schön, dass du dabei bist! Hier ist dein persönlicher Empfehlungslink. Teile ihn mit Freunden – wenn sie sich registrieren, bekommst du Prämien:'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Willkommen im Affiliate-Programm von {{companyName}}',
      preheader: 'Dein Affiliate-Link ist bereit.',
      body: ['Hallo {{firstName}},', 'willkommen an Bord! Hier ist dein Affiliate-Link. Teile ihn überall, wo du uns empfiehlst – für jeden Kauf darüber bekommst du eine Provision:'],
    },
    welcomeReferred: {
      subject: 'Willkommen! {{referrerFirstName}} hat dich empfohlen',
      preheader: 'Dein eigener Empfehlungslink ist auch schon bereit.',
      body: ['Hallo {{firstName}},', 'schön, dass du dabei bist! {{referrerFirstName}} hat dich empfohlen – und auch du kannst Prämien bekommen, wenn du deinen eigenen Link mit Freunden teilst:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Jemand hat gerade deinen Link geöffnet',
      preheader: 'Dein Link hatte seinen ersten Besuch.',
      body: ['Hallo {{firstName}},', 'gute Nachrichten: Jemand hat deinen Link gerade zum ersten Mal geöffnet. Teil ihn weiter:'],
    },
    referralLinkUsed: {
      subject: 'Deine Empfehlung zählt',
      preheader: 'Eine Empfehlung von dir ist abgeschlossen.',
      body: ['Hallo {{firstName}},', 'gute Nachrichten: {{referredFirstName}} ist über deinen Link dabei, und die Empfehlung wird dir jetzt angerechnet.', 'Bisher empfohlen: {{referralCount}}', 'Teil deinen Link weiter:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} hat sich über deinen Link registriert',
      preheader: 'Du hast jemanden geworben.',
      body: ['Hallo {{firstName}},', '{{referredFirstName}} hat sich gerade über deinen Empfehlungslink registriert. Danke, dass du uns weiterempfiehlst!'],
    },
    referredSignupAffiliate: {
      subject: 'Neue Kundschaft über deinen Link',
      preheader: 'Du hast jemand Neues geworben.',
      body: ['Hallo {{firstName}},', '{{referredFirstName}} hat sich über deinen Affiliate-Link registriert. Sobald ein Kauf erfolgt, bekommst du eine Provision.'],
    },
    goalAchieved: {
      subject: 'Du hast eine Prämie verdient!',
      preheader: 'Glückwunsch, eine Prämie gehört dir.',
      body: ['Hallo {{firstName}},', 'herzlichen Glückwunsch, du hast eine Prämie verdient:', '<strong>{{rewardDescription}}</strong>', 'Danke, dass du {{companyName}} weiterempfiehlst!'],
    },
    campaignEndedWinners: {
      subject: 'Das Programm ist beendet – du hast gewonnen!',
      preheader: 'Danke fürs Mitmachen.',
      body: ['Hallo {{firstName}},', 'unser Empfehlungsprogramm ist beendet, und du gehörst zu den Gewinnern. Wir melden uns bei dir wegen deiner Prämie.'],
    },
    campaignEndedNonWinners: {
      subject: 'Das Programm ist beendet',
      preheader: 'Danke fürs Mitmachen.',
      body: ['Hallo {{firstName}},', 'unser Empfehlungsprogramm ist beendet. Danke, dass du mitgemacht und uns weiterempfohlen hast!'],
    },
    progressUpdateMonthly: {
      subject: 'Dein Monatsrückblick',
      preheader: 'So lief dein Link in diesem Monat.',
      body: ['Hallo {{firstName}},', 'so läuft dein Empfehlungslink:', 'Bisher empfohlen: {{referralCount}}', 'Teil ihn weiter:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Dein Monatsrückblick',
      preheader: 'So lief dein Link in diesem Monat.',
      body: ['Hallo {{firstName}},', 'so läuft dein Affiliate-Link:', 'Bisher geworbene Kundschaft: {{referralCount}}', 'Teil ihn weiter:'],
    },
    commissionGenerated: {
      subject: 'Du hast {{commissionAmount}} Provision verdient',
      preheader: 'Ein Kauf über deinen Link.',
      body: ['Hallo {{firstName}},', 'jemand, den du geworben hast, hat gerade gekauft – dafür bekommst du {{commissionAmount}} Provision.'],
    },
    commissionAdjusted: {
      subject: 'Eine Provision wurde angepasst',
      preheader: 'Eine Erstattung oder Rückbuchung hat eine Provision geändert.',
      body: ['Hallo {{firstName}},', 'durch eine Erstattung oder Rückbuchung hat sich eine deiner Provisionen geändert. Sie beträgt jetzt {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Eine Auszahlung über {{payoutAmount}} ist unterwegs',
      preheader: 'Deine nächste Auszahlung ist geplant.',
      body: ['Hallo {{firstName}},', 'deine Auszahlung über {{payoutAmount}} ist geplant und wird in Kürze gesendet.'],
    },
    payoutSentSuccess: {
      subject: 'Wir haben dir {{payoutAmount}} gesendet',
      preheader: 'Deine Auszahlung ist raus.',
      body: ['Hallo {{firstName}},', 'wir haben dir gerade deine Auszahlung über {{payoutAmount}} gesendet. Danke für die tolle Partnerschaft!'],
    },
    invite: {
      subject: '{{referrerFirstName}} lädt dich zu {{companyName}} ein',
      preheader: 'Eine persönliche Einladung von {{referrerFirstName}}.',
      body: ['Hallo,', '{{referrerFirstName}} glaubt, dass dir {{companyName}} gefällt, und schickt dir diese Nachricht:', '{{messageText}}', 'Registriere dich über diesen Link:'],
    },
    loginLink: {
      subject: 'Dein Anmeldelink',
      preheader: 'Mit einem Klick angemeldet.',
      body: ['Hallo {{firstName}},', 'mit diesem Link meldest du dich an. Er funktioniert einmal und ist 15 Minuten gültig:', '<a href="{{loginUrl}}">Anmelden</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Bestätige deine PayPal-E-Mail-Adresse',
      preheader: 'Ein Klick, und wir wissen, wohin deine Auszahlungen gehen.',
      body: ['Hallo {{firstName}},', 'bitte bestätige, dass deine Auszahlungen an das PayPal-Konto {{paypalEmail}} gehen sollen:', '<a href="{{confirmationUrl}}">PayPal-Adresse bestätigen</a>'],
    },
    taxInfoMissing: {
      subject: 'Wir brauchen deine Steuerinformationen',
      preheader: 'Nötig, bevor wir dir etwas auszahlen können.',
      body: ['Hallo {{firstName}},', 'bevor wir dir Auszahlungen senden können, brauchen wir deine Steuerinformationen. Das dauert nur ein paar Minuten:', '<a href="{{taxInfoUrl}}">Steuerinformationen angeben</a>'],
    },
    taxInfoReceived: {
      subject: 'Deine Steuerinformationen sind angekommen',
      preheader: 'Wir prüfen sie gerade.',
      body: ['Hallo {{firstName}},', 'danke, deine Steuerinformationen sind angekommen. Wir prüfen sie in Kürze.'],
    },
    taxInfoApproved: {
      subject: 'Deine Steuerinformationen wurden bestätigt',
      preheader: 'Für Auszahlungen ist alles bereit.',
      body: ['Hallo {{firstName}},', 'deine Steuerinformationen wurden bestätigt. Für deine Auszahlungen ist jetzt alles bereit.'],
    },
    taxInfoRejected: {
      subject: 'Bitte prüfe deine Steuerinformationen noch einmal',
      preheader: 'Bitte aktualisiere deine Steuerinformationen.',
      body: ['Hallo {{firstName}},', 'wir konnten deine Steuerinformationen leider nicht annehmen. Folgender Grund wurde uns genannt:', '{{reason}}', '<a href="{{taxInfoUrl}}">Steuerinformationen aktualisieren</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Deine Einladung wurde noch nicht angenommen', other: '{count} deiner Einladungen wurden noch nicht angenommen' },
    followUpPreheader: 'Eine kleine Erinnerung wirkt oft Wunder.',
    followUpGreeting: 'Hallo {{firstName}},',
    followUpIntro: { one: 'du hast jemanden zu {{companyName}} eingeladen, der noch nicht dabei ist:', other: 'du hast {count} Personen zu {{companyName}} eingeladen, die noch nicht dabei sind:' },
    followUpAsk: 'Eine persönliche Erinnerung hilft oft. Hier ist dein Link zum erneuten Teilen:',
    payoutConfirmSubject: 'Bestätige deine {{payoutProvider}}-Auszahlungsdaten',
    payoutConfirmPreheader: 'Ein Klick, und wir wissen, wohin deine Auszahlungen gehen.',
    payoutConfirmGreeting: 'Hallo {{firstName}},',
    payoutConfirmBody: 'bitte bestätige das {{payoutProvider}}-Konto, an das wir deine Auszahlungen senden sollen. Der Link funktioniert einmal und ist 24 Stunden gültig:',
    payoutConfirmButton: '{{payoutProvider}}-Daten bestätigen',
    affiliateInviteSubject: 'Deine Einladung ins Affiliate-Programm von {{companyName}}',
    affiliateInvitePreheader: 'Werde Affiliate und verdiene Provisionen.',
    affiliateInviteGreeting: 'Hallo {{firstName}},',
    affiliateInviteBody: 'du bist eingeladen, beim Affiliate-Programm von {{companyName}} mitzumachen. Nimm die Einladung an, um deinen Affiliate-Link zu erhalten und Provisionen zu verdienen:',
    affiliateInviteButton: 'Einladung annehmen',
    affiliateInviteExpires: 'Der Link funktioniert einmal und ist bis zum {{expiresOn}} gültig.',
  },
};
