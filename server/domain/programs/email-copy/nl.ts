// The default program emails in Dutch (issue #27): "je", as Dutch consumer brands write.
import type { EmailCopy } from './types.ts';

export const nlEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Je referrallink van {{companyName}}',
      preheader: 'Deel hem met vrienden en verdien beloningen.',
      body: ['Hoi {{firstName}},', 'Leuk dat je meedoet! Hier is je persoonlijke referrallink. Deel hem met vrienden: als zij zich aanmelden, verdien jij beloningen.'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Welkom bij het affiliateprogramma van {{companyName}}',
      preheader: 'Je affiliatelink staat klaar.',
      body: ['Hoi {{firstName}},', 'Welkom aan boord! Hier is je affiliatelink. Deel hem overal waar je ons aanbeveelt en verdien commissie op elke verkoop die hij oplevert:'],
    },
    welcomeReferred: {
      subject: 'Welkom! {{referrerFirstName}} heeft je aangeraden',
      preheader: 'Je eigen referrallink staat ook klaar.',
      body: ['Hoi {{firstName}},', 'Leuk dat je meedoet! {{referrerFirstName}} heeft je aangeraden, en jij kunt ook beloningen verdienen door je eigen link met vrienden te delen:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Iemand heeft net je link geopend',
      preheader: 'Je link heeft zijn eerste bezoek gehad.',
      body: ['Hoi {{firstName}},', 'Goed nieuws: iemand heeft je link zojuist voor het eerst geopend. Blijf hem delen:'],
    },
    referralLinkUsed: {
      subject: 'Je doorverwijzing telt mee',
      preheader: 'Een van je doorverwijzingen is afgerond.',
      body: ['Hoi {{firstName}},', 'Goed nieuws: {{referredFirstName}} doet mee via jouw link, en de doorverwijzing telt nu voor jou.', 'Vrienden doorverwezen tot nu toe: {{referralCount}}', 'Blijf je link delen:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} heeft zich aangemeld via je link',
      preheader: 'Je hebt een vriend doorverwezen.',
      body: ['Hoi {{firstName}},', '{{referredFirstName}} heeft zich net aangemeld via je referrallink. Bedankt dat je ons aanbeveelt!'],
    },
    referredSignupAffiliate: {
      subject: 'Een nieuwe klant heeft zich aangemeld via je link',
      preheader: 'Je hebt iemand nieuw aangebracht.',
      body: ['Hoi {{firstName}},', '{{referredFirstName}} heeft zich aangemeld via je affiliatelink. Je verdient commissie zodra er een aankoop volgt.'],
    },
    goalAchieved: {
      subject: 'Je hebt een beloning verdiend!',
      preheader: 'Gefeliciteerd, er ligt een beloning voor je klaar.',
      body: ['Hoi {{firstName}},', 'Gefeliciteerd, je hebt een beloning verdiend:', '<strong>{{rewardDescription}}</strong>', 'Bedankt dat je {{companyName}} aanbeveelt!'],
    },
    campaignEndedWinners: {
      subject: 'Het programma is afgelopen: je hebt gewonnen!',
      preheader: 'Bedankt voor je deelname.',
      body: ['Hoi {{firstName}},', 'Ons referralprogramma is afgelopen en jij bent een van de winnaars. We nemen contact met je op over je beloning.'],
    },
    campaignEndedNonWinners: {
      subject: 'Het programma is afgelopen',
      preheader: 'Bedankt voor je deelname.',
      body: ['Hoi {{firstName}},', 'Ons referralprogramma is afgelopen. Bedankt dat je meedeed en ons hebt aanbevolen!'],
    },
    progressUpdateMonthly: {
      subject: 'Je maandoverzicht',
      preheader: 'Zo deed je link het deze maand.',
      body: ['Hoi {{firstName}},', 'Zo doet je referrallink het.', 'Vrienden doorverwezen tot nu toe: {{referralCount}}', 'Blijf hem delen:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Je maandoverzicht',
      preheader: 'Zo deed je link het deze maand.',
      body: ['Hoi {{firstName}},', 'Zo doet je affiliatelink het.', 'Klanten aangebracht tot nu toe: {{referralCount}}', 'Blijf hem delen:'],
    },
    commissionGenerated: {
      subject: 'Je hebt {{commissionAmount}} commissie verdiend',
      preheader: 'Een verkoop via je link.',
      body: ['Hoi {{firstName}},', 'Een klant die jij hebt aangebracht heeft net iets gekocht. Je verdient {{commissionAmount}} commissie.'],
    },
    commissionAdjusted: {
      subject: 'Een commissie is aangepast',
      preheader: 'Een terugbetaling of chargeback heeft een commissie veranderd.',
      body: ['Hoi {{firstName}},', 'Door een terugbetaling of chargeback is een van je commissies veranderd. Die bedraagt nu {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Een uitbetaling van {{payoutAmount}} is onderweg',
      preheader: 'Je volgende uitbetaling staat gepland.',
      body: ['Hoi {{firstName}},', 'Je uitbetaling van {{payoutAmount}} staat gepland en wordt binnenkort verstuurd.'],
    },
    payoutSentSuccess: {
      subject: 'We hebben je {{payoutAmount}} gestuurd',
      preheader: 'Je uitbetaling is verstuurd.',
      body: ['Hoi {{firstName}},', 'We hebben zojuist je uitbetaling van {{payoutAmount}} verstuurd. Bedankt voor de fijne samenwerking!'],
    },
    invite: {
      subject: '{{referrerFirstName}} nodigt je uit voor {{companyName}}',
      preheader: 'Een persoonlijke uitnodiging van {{referrerFirstName}}.',
      body: ['Hoi,', '{{referrerFirstName}} denkt dat je {{companyName}} leuk vindt en stuurt je dit bericht:', '{{messageText}}', 'Meld je aan via deze link:'],
    },
    loginLink: {
      subject: 'Je inloglink',
      preheader: 'Inloggen met één klik.',
      body: ['Hoi {{firstName}},', 'Gebruik deze link om in te loggen. Hij werkt één keer en verloopt over 15 minuten:', '<a href="{{loginUrl}}">Inloggen</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Bevestig je PayPal-e-mailadres',
      preheader: 'Eén klik om te bevestigen waar we je uitbetalingen naartoe sturen.',
      body: ['Hoi {{firstName}},', 'Bevestig dat je uitbetalingen naar het PayPal-account {{paypalEmail}} moeten gaan:', '<a href="{{confirmationUrl}}">Mijn PayPal-e-mailadres bevestigen</a>'],
    },
    taxInfoMissing: {
      subject: 'We hebben je belastinggegevens nodig',
      preheader: 'Nodig voordat we je kunnen uitbetalen.',
      body: ['Hoi {{firstName}},', 'Voordat we je uitbetalingen kunnen doen, hebben we je belastinggegevens nodig. Het kost maar een paar minuten:', '<a href="{{taxInfoUrl}}">Mijn belastinggegevens invullen</a>'],
    },
    taxInfoReceived: {
      subject: 'We hebben je belastinggegevens ontvangen',
      preheader: 'We kijken ze na.',
      body: ['Hoi {{firstName}},', 'Bedankt, we hebben je belastinggegevens ontvangen en kijken ze binnenkort na.'],
    },
    taxInfoApproved: {
      subject: 'Je belastinggegevens zijn goedgekeurd',
      preheader: 'Alles staat klaar voor uitbetalingen.',
      body: ['Hoi {{firstName}},', 'Je belastinggegevens zijn goedgekeurd. Alles staat klaar om uitbetalingen te ontvangen.'],
    },
    taxInfoRejected: {
      subject: 'Je belastinggegevens moeten nog eens worden bekeken',
      preheader: 'Werk je belastinggegevens bij.',
      body: ['Hoi {{firstName}},', 'We konden je belastinggegevens niet accepteren. Dit is de reden die we kregen:', '{{reason}}', '<a href="{{taxInfoUrl}}">Mijn belastinggegevens bijwerken</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Je uitnodiging is nog niet geaccepteerd', other: '{count} van je uitnodigingen zijn nog niet geaccepteerd' },
    followUpPreheader: 'Een vriendelijk duwtje helpt vaak.',
    followUpGreeting: 'Hoi {{firstName}},',
    followUpIntro: { one: 'Je hebt een vriend uitgenodigd voor {{companyName}} die nog niet meedoet:', other: 'Je hebt {count} vrienden uitgenodigd voor {{companyName}} die nog niet meedoen:' },
    followUpAsk: 'Een persoonlijke herinnering helpt vaak. Hier is je link om opnieuw te delen:',
    payoutConfirmSubject: 'Bevestig je {{payoutProvider}}-uitbetalingsgegevens',
    payoutConfirmPreheader: 'Eén klik om te bevestigen waar we je uitbetalingen naartoe sturen.',
    payoutConfirmGreeting: 'Hoi {{firstName}},',
    payoutConfirmBody: 'Bevestig het {{payoutProvider}}-account waar we je uitbetalingen naartoe moeten sturen. De link werkt één keer en verloopt over 24 uur:',
    payoutConfirmButton: 'Mijn {{payoutProvider}}-gegevens bevestigen',
    affiliateInviteSubject: 'Je bent uitgenodigd voor het affiliateprogramma van {{companyName}}',
    affiliateInvitePreheader: 'Word affiliate en verdien commissie.',
    affiliateInviteGreeting: 'Hallo {{firstName}},',
    affiliateInviteBody: 'Je bent uitgenodigd om mee te doen aan het affiliateprogramma van {{companyName}}. Accepteer de uitnodiging om je affiliatelink te krijgen en commissie te verdienen:',
    affiliateInviteButton: 'Uitnodiging accepteren',
    affiliateInviteExpires: 'De link werkt één keer en verloopt op {{expiresOn}}.',
  },
};
