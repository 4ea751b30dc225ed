// The default program emails in Swedish (issue #27): "du", as Swedish brands write.
import type { EmailCopy } from './types.ts';

export const svEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Din värvningslänk från {{companyName}}',
      preheader: 'Dela den med vänner och få belöningar.',
      body: ['Hej {{firstName}}!', 'Kul att du är med! Här är din personliga värvningslänk. Dela den med vänner – när de registrerar sig får du belöningar:'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Välkommen till affiliateprogrammet hos {{companyName}}',
      preheader: 'Din affiliatelänk är klar.',
      body: ['Hej {{firstName}}!', 'Välkommen ombord! Här är din affiliatelänk. Dela den överallt där du rekommenderar oss – du får provision på varje köp den leder till:'],
    },
    welcomeReferred: {
      subject: 'Välkommen! {{referrerFirstName}} tipsade om oss',
      preheader: 'Din egen värvningslänk är också klar.',
      body: ['Hej {{firstName}}!', 'Kul att du är med! {{referrerFirstName}} tipsade dig om oss, och du kan också få belöningar genom att dela din egen länk med vänner:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Någon har precis öppnat din länk',
      preheader: 'Din länk har fått sitt första besök.',
      body: ['Hej {{firstName}}!', 'Goda nyheter: någon har precis öppnat din länk för första gången. Fortsätt dela den:'],
    },
    referralLinkUsed: {
      subject: 'Din värvning räknas',
      preheader: 'En av dina värvningar är klar.',
      body: ['Hej {{firstName}}!', 'Goda nyheter: {{referredFirstName}} har gått med via din länk, och värvningen räknas nu för dig.', 'Värvade vänner hittills: {{referralCount}}', 'Fortsätt dela din länk:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} registrerade sig via din länk',
      preheader: 'Du har värvat en vän.',
      body: ['Hej {{firstName}}!', '{{referredFirstName}} har precis registrerat sig via din värvningslänk. Tack för att du sprider ordet!'],
    },
    referredSignupAffiliate: {
      subject: 'En ny kund registrerade sig via din länk',
      preheader: 'Du har värvat någon ny.',
      body: ['Hej {{firstName}}!', '{{referredFirstName}} registrerade sig via din affiliatelänk. Du får provision när personen handlar.'],
    },
    goalAchieved: {
      subject: 'Du har fått en belöning!',
      preheader: 'Grattis, en belöning är din.',
      body: ['Hej {{firstName}}!', 'Grattis, du har fått en belöning:', '<strong>{{rewardDescription}}</strong>', 'Tack för att du sprider ordet om {{companyName}}!'],
    },
    campaignEndedWinners: {
      subject: 'Programmet är slut – du har vunnit!',
      preheader: 'Tack för att du var med.',
      body: ['Hej {{firstName}}!', 'Vårt värvningsprogram är slut, och du är en av vinnarna. Vi hör av oss om din belöning.'],
    },
    campaignEndedNonWinners: {
      subject: 'Programmet är slut',
      preheader: 'Tack för att du var med.',
      body: ['Hej {{firstName}}!', 'Vårt värvningsprogram är slut. Tack för att du var med och spred ordet!'],
    },
    progressUpdateMonthly: {
      subject: 'Din månadsöversikt',
      preheader: 'Så gick det för din länk den här månaden.',
      body: ['Hej {{firstName}}!', 'Så går det för din värvningslänk.', 'Värvade vänner hittills: {{referralCount}}', 'Fortsätt dela den:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Din månadsöversikt',
      preheader: 'Så gick det för din länk den här månaden.',
      body: ['Hej {{firstName}}!', 'Så går det för din affiliatelänk.', 'Värvade kunder hittills: {{referralCount}}', 'Fortsätt dela den:'],
    },
    commissionGenerated: {
      subject: 'Du har tjänat {{commissionAmount}} i provision',
      preheader: 'Ett köp via din länk.',
      body: ['Hej {{firstName}}!', 'En kund du värvat har precis handlat, och du har tjänat {{commissionAmount}} i provision.'],
    },
    commissionAdjusted: {
      subject: 'En provision har justerats',
      preheader: 'En återbetalning eller återkrav har ändrat en provision.',
      body: ['Hej {{firstName}}!', 'En återbetalning eller ett återkrav har ändrat en av dina provisioner. Den är nu {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'En utbetalning på {{payoutAmount}} är på väg',
      preheader: 'Din nästa utbetalning är schemalagd.',
      body: ['Hej {{firstName}}!', 'Din utbetalning på {{payoutAmount}} är schemalagd och skickas snart.'],
    },
    payoutSentSuccess: {
      subject: 'Vi har skickat {{payoutAmount}} till dig',
      preheader: 'Din utbetalning har skickats.',
      body: ['Hej {{firstName}}!', 'Vi har precis skickat din utbetalning på {{payoutAmount}}. Tack för ett fint samarbete!'],
    },
    invite: {
      subject: '{{referrerFirstName}} bjuder in dig till {{companyName}}',
      preheader: 'En personlig inbjudan från {{referrerFirstName}}.',
      body: ['Hej!', '{{referrerFirstName}} tror att du kommer att gilla {{companyName}} och skickar dig det här meddelandet:', '{{messageText}}', 'Registrera dig via länken:'],
    },
    loginLink: {
      subject: 'Din inloggningslänk',
      preheader: 'Logga in med ett klick.',
      body: ['Hej {{firstName}}!', 'Använd den här länken för att logga in. Den fungerar en gång och går ut om 15 minuter:', '<a href="{{loginUrl}}">Logga in</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Bekräfta din e-postadress för PayPal',
      preheader: 'Ett klick för att bekräfta vart vi skickar dina utbetalningar.',
      body: ['Hej {{firstName}}!', 'Bekräfta att dina utbetalningar ska gå till PayPal-kontot {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Bekräfta min PayPal-adress</a>'],
    },
    taxInfoMissing: {
      subject: 'Vi behöver dina skatteuppgifter',
      preheader: 'Krävs innan vi kan betala ut.',
      body: ['Hej {{firstName}}!', 'Innan vi kan göra dina utbetalningar behöver vi dina skatteuppgifter. Det tar bara några minuter:', '<a href="{{taxInfoUrl}}">Lägg till mina skatteuppgifter</a>'],
    },
    taxInfoReceived: {
      subject: 'Vi har tagit emot dina skatteuppgifter',
      preheader: 'Vi granskar dem nu.',
      body: ['Hej {{firstName}}!', 'Tack, vi har tagit emot dina skatteuppgifter och granskar dem inom kort.'],
    },
    taxInfoApproved: {
      subject: 'Dina skatteuppgifter är godkända',
      preheader: 'Allt är klart för utbetalningar.',
      body: ['Hej {{firstName}}!', 'Dina skatteuppgifter har godkänts. Allt är klart för att du ska kunna få utbetalningar.'],
    },
    taxInfoRejected: {
      subject: 'Dina skatteuppgifter behöver ses över',
      preheader: 'Uppdatera dina skatteuppgifter.',
      body: ['Hej {{firstName}}!', 'Vi kunde inte godkänna dina skatteuppgifter. Det här är skälet vi fick:', '{{reason}}', '<a href="{{taxInfoUrl}}">Uppdatera mina skatteuppgifter</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Din inbjudan har inte accepterats än', other: '{count} av dina inbjudningar har inte accepterats än' },
    followUpPreheader: 'En vänlig påminnelse hjälper ofta.',
    followUpGreeting: 'Hej {{firstName}}!',
    followUpIntro: { one: 'Du har bjudit in en vän till {{companyName}} som inte har gått med än:', other: 'Du har bjudit in {count} vänner till {{companyName}} som inte har gått med än:' },
    followUpAsk: 'En personlig påminnelse hjälper ofta. Här är din länk att dela igen:',
    payoutConfirmSubject: 'Bekräfta dina utbetalningsuppgifter för {{payoutProvider}}',
    payoutConfirmPreheader: 'Ett klick för att bekräfta vart vi skickar dina utbetalningar.',
    payoutConfirmGreeting: 'Hej {{firstName}}!',
    payoutConfirmBody: 'Bekräfta vilket {{payoutProvider}}-konto vi ska skicka dina utbetalningar till. Länken fungerar en gång och går ut om 24 timmar:',
    payoutConfirmButton: 'Bekräfta mina {{payoutProvider}}-uppgifter',
    affiliateInviteSubject: 'Du är inbjuden till affiliateprogrammet hos {{companyName}}',
    affiliateInvitePreheader: 'Bli affiliate och tjäna provision.',
    affiliateInviteGreeting: 'Hej {{firstName}}!',
    affiliateInviteBody: 'Du är inbjuden att gå med i affiliateprogrammet hos {{companyName}}. Tacka ja för att få din affiliatelänk och börja tjäna provision:',
    affiliateInviteButton: 'Tacka ja till inbjudan',
    affiliateInviteExpires: 'Länken fungerar en gång och går ut den {{expiresOn}}.',
  },
};
