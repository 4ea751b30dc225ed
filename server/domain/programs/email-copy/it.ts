// The default program emails in Italian (issue #27): "tu", as Italian consumer brands write.
import type { EmailCopy } from './types.ts';

export const itEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Il tuo link di referral {{companyName}}',
      preheader: 'Condividilo con gli amici e ottieni premi.',
      body: ['Ciao {{firstName}},', 'grazie per esserti iscritto! Ecco il tuo link di referral personale. Condividilo con gli amici: quando si iscrivono, ottieni dei premi.'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Benvenuto nel programma di affiliazione di {{companyName}}',
      preheader: 'Il tuo link di affiliazione è pronto.',
      body: ['Ciao {{firstName}},', 'benvenuto a bordo! Ecco il tuo link di affiliazione. Condividilo ovunque ci consigli: su ogni vendita che porta guadagni una commissione.'],
    },
    welcomeReferred: {
      subject: 'Benvenuto! Ti ha invitato {{referrerFirstName}}',
      preheader: 'Anche il tuo link di referral è pronto.',
      body: ['Ciao {{firstName}},', 'grazie per esserti iscritto! Ti ha invitato {{referrerFirstName}}, e anche tu puoi ottenere premi condividendo il tuo link con gli amici:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Qualcuno ha appena aperto il tuo link',
      preheader: 'Il tuo link ha ricevuto la prima visita.',
      body: ['Ciao {{firstName}},', 'buone notizie: qualcuno ha appena aperto il tuo link per la prima volta. Continua a condividerlo:'],
    },
    referralLinkUsed: {
      subject: 'Il tuo referral è valido',
      preheader: 'Uno dei tuoi referral è andato a buon fine.',
      body: ['Ciao {{firstName}},', 'buone notizie: {{referredFirstName}} si è iscritto con il tuo link e il referral ora conta per te.', 'Amici invitati finora: {{referralCount}}', 'Continua a condividere il tuo link:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} si è iscritto con il tuo link',
      preheader: 'Hai invitato un amico.',
      body: ['Ciao {{firstName}},', '{{referredFirstName}} si è appena iscritto con il tuo link di referral. Grazie per il passaparola!'],
    },
    referredSignupAffiliate: {
      subject: 'Un nuovo cliente si è iscritto con il tuo link',
      preheader: 'Hai portato un nuovo cliente.',
      body: ['Ciao {{firstName}},', '{{referredFirstName}} si è iscritto con il tuo link di affiliazione. Guadagnerai una commissione quando farà un acquisto.'],
    },
    goalAchieved: {
      subject: 'Hai ottenuto un premio!',
      preheader: 'Complimenti, un premio è tuo.',
      body: ['Ciao {{firstName}},', 'complimenti, hai ottenuto un premio:', '<strong>{{rewardDescription}}</strong>', 'Grazie per aver parlato di {{companyName}}!'],
    },
    campaignEndedWinners: {
      subject: 'Il programma è terminato: hai vinto!',
      preheader: 'Grazie per aver partecipato.',
      body: ['Ciao {{firstName}},', 'il nostro programma di referral è terminato e sei tra i vincitori. Ti contatteremo per il tuo premio.'],
    },
    campaignEndedNonWinners: {
      subject: 'Il programma è terminato',
      preheader: 'Grazie per aver partecipato.',
      body: ['Ciao {{firstName}},', 'il nostro programma di referral è terminato. Grazie per aver partecipato e per il passaparola!'],
    },
    progressUpdateMonthly: {
      subject: 'Il tuo riepilogo mensile',
      preheader: 'Come è andato il tuo link questo mese.',
      body: ['Ciao {{firstName}},', 'ecco come sta andando il tuo link di referral.', 'Amici invitati finora: {{referralCount}}', 'Continua a condividerlo:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Il tuo riepilogo mensile',
      preheader: 'Come è andato il tuo link questo mese.',
      body: ['Ciao {{firstName}},', 'ecco come sta andando il tuo link di affiliazione.', 'Clienti portati finora: {{referralCount}}', 'Continua a condividerlo:'],
    },
    commissionGenerated: {
      subject: 'Hai guadagnato una commissione di {{commissionAmount}}',
      preheader: 'Una vendita tramite il tuo link.',
      body: ['Ciao {{firstName}},', 'un cliente che hai portato ha appena fatto un acquisto e hai guadagnato una commissione di {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'Una commissione è stata modificata',
      preheader: 'Un rimborso o uno storno ha modificato una commissione.',
      body: ['Ciao {{firstName}},', 'un rimborso o uno storno ha modificato una delle tue commissioni. Ora è di {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Un pagamento di {{payoutAmount}} è in arrivo',
      preheader: 'Il tuo prossimo pagamento è programmato.',
      body: ['Ciao {{firstName}},', 'il tuo pagamento di {{payoutAmount}} è programmato e verrà inviato a breve.'],
    },
    payoutSentSuccess: {
      subject: 'Ti abbiamo inviato {{payoutAmount}}',
      preheader: 'Il tuo pagamento è stato inviato.',
      body: ['Ciao {{firstName}},', 'abbiamo appena inviato il tuo pagamento di {{payoutAmount}}. Grazie per la splendida collaborazione!'],
    },
    invite: {
      subject: '{{referrerFirstName}} ti invita su {{companyName}}',
      preheader: 'Un invito personale da {{referrerFirstName}}.',
      body: ['Ciao,', '{{referrerFirstName}} pensa che {{companyName}} ti piacerà e ti ha mandato questo messaggio:', '{{messageText}}', 'Iscriviti con il suo link:'],
    },
    loginLink: {
      subject: 'Il tuo link di accesso',
      preheader: 'Accedi con un clic.',
      body: ['Ciao {{firstName}},', 'usa questo link per accedere. Funziona una sola volta e scade tra 15 minuti:', '<a href="{{loginUrl}}">Accedi</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Conferma la tua email PayPal',
      preheader: 'Un clic per confermare dove inviare i tuoi pagamenti.',
      body: ['Ciao {{firstName}},', 'conferma che i pagamenti devono essere inviati all’account PayPal {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Conferma la mia email PayPal</a>'],
    },
    taxInfoMissing: {
      subject: 'Ci servono le tue informazioni fiscali',
      preheader: 'Necessarie prima di poterti pagare.',
      body: ['Ciao {{firstName}},', 'prima di inviarti i pagamenti ci servono le tue informazioni fiscali. Bastano pochi minuti:', '<a href="{{taxInfoUrl}}">Aggiungi le mie informazioni fiscali</a>'],
    },
    taxInfoReceived: {
      subject: 'Abbiamo ricevuto le tue informazioni fiscali',
      preheader: 'Le stiamo verificando.',
      body: ['Ciao {{firstName}},', 'grazie, abbiamo ricevuto le tue informazioni fiscali e le verificheremo a breve.'],
    },
    taxInfoApproved: {
      subject: 'Le tue informazioni fiscali sono state approvate',
      preheader: 'È tutto pronto per i pagamenti.',
      body: ['Ciao {{firstName}},', 'le tue informazioni fiscali sono state approvate. È tutto pronto per ricevere i pagamenti.'],
    },
    taxInfoRejected: {
      subject: 'Le tue informazioni fiscali vanno ricontrollate',
      preheader: 'Aggiorna le tue informazioni fiscali.',
      body: ['Ciao {{firstName}},', 'non abbiamo potuto accettare le tue informazioni fiscali. Questo è il motivo che ci è stato indicato:', '{{reason}}', '<a href="{{taxInfoUrl}}">Aggiorna le mie informazioni fiscali</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Il tuo invito non è ancora stato accettato', many: '{count} dei tuoi inviti non sono ancora stati accettati', other: '{count} dei tuoi inviti non sono ancora stati accettati' },
    followUpPreheader: 'Un promemoria gentile aiuta spesso.',
    followUpGreeting: 'Ciao {{firstName}},',
    followUpIntro: { one: 'hai invitato su {{companyName}} un amico che non si è ancora iscritto:', many: 'hai invitato su {{companyName}} {count} amici che non si sono ancora iscritti:', other: 'hai invitato su {{companyName}} {count} amici che non si sono ancora iscritti:' },
    followUpAsk: 'Un promemoria personale aiuta spesso. Ecco il tuo link da condividere di nuovo:',
    payoutConfirmSubject: 'Conferma i tuoi dati di pagamento {{payoutProvider}}',
    payoutConfirmPreheader: 'Un clic per confermare dove inviare i tuoi pagamenti.',
    payoutConfirmGreeting: 'Ciao {{firstName}},',
    payoutConfirmBody: 'conferma l’account {{payoutProvider}} su cui inviare i tuoi pagamenti. Il link funziona una sola volta e scade tra 24 ore:',
    payoutConfirmButton: 'Conferma i miei dati {{payoutProvider}}',
    affiliateInviteSubject: 'Sei invitato nel programma di affiliazione di {{companyName}}',
    affiliateInvitePreheader: 'Diventa affiliato e guadagna commissioni.',
    affiliateInviteGreeting: 'Ciao {{firstName}},',
    affiliateInviteBody: 'sei invitato a entrare nel programma di affiliazione di {{companyName}}. Accetta l’invito per ricevere il tuo link di affiliazione e iniziare a guadagnare commissioni:',
    affiliateInviteButton: 'Accetta l’invito',
    affiliateInviteExpires: 'Il link funziona una sola volta e scade il {{expiresOn}}.',
  },
};
