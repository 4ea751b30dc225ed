// The default program emails in French (issue #27): "vous", as French consumer brands usually write.
import type { EmailCopy } from './types.ts';

export const frEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Votre lien de parrainage {{companyName}}',
      preheader: 'Partagez-le et gagnez des récompenses.',
      body: ['Bonjour {{firstName}},', 'Merci de nous avoir rejoints ! Voici votre lien de parrainage personnel. Partagez-le avec vos proches : vous gagnez des récompenses dès qu’ils s’inscrivent.'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Bienvenue dans le programme d’affiliation de {{companyName}}',
      preheader: 'Votre lien d’affiliation est prêt.',
      body: ['Bonjour {{firstName}},', 'Bienvenue à bord ! Voici votre lien d’affiliation. Partagez-le partout où vous nous recommandez : chaque vente qu’il génère vous rapporte une commission.'],
    },
    welcomeReferred: {
      subject: 'Bienvenue ! {{referrerFirstName}} vous a parrainé',
      preheader: 'Votre lien de parrainage est prêt, lui aussi.',
      body: ['Bonjour {{firstName}},', 'Merci de nous avoir rejoints ! {{referrerFirstName}} vous a parrainé, et vous pouvez vous aussi gagner des récompenses en partageant votre propre lien :'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Quelqu’un vient d’ouvrir votre lien',
      preheader: 'Votre lien a reçu sa première visite.',
      body: ['Bonjour {{firstName}},', 'Bonne nouvelle : quelqu’un vient d’ouvrir votre lien pour la première fois. Continuez à le partager :'],
    },
    referralLinkUsed: {
      subject: 'Votre parrainage compte',
      preheader: 'Un de vos parrainages est validé.',
      body: ['Bonjour {{firstName}},', 'Bonne nouvelle : {{referredFirstName}} nous a rejoints grâce à votre lien, et le parrainage vous est désormais attribué.', 'Proches parrainés jusqu’ici : {{referralCount}}', 'Continuez à partager votre lien :'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} s’est inscrit grâce à votre lien',
      preheader: 'Vous avez parrainé un proche.',
      body: ['Bonjour {{firstName}},', '{{referredFirstName}} vient de s’inscrire grâce à votre lien de parrainage. Merci de faire passer le mot !'],
    },
    referredSignupAffiliate: {
      subject: 'Un nouveau client s’est inscrit grâce à votre lien',
      preheader: 'Vous avez apporté un nouveau client.',
      body: ['Bonjour {{firstName}},', '{{referredFirstName}} s’est inscrit grâce à votre lien d’affiliation. Vous toucherez une commission dès son premier achat.'],
    },
    goalAchieved: {
      subject: 'Vous avez gagné une récompense !',
      preheader: 'Félicitations, une récompense vous attend.',
      body: ['Bonjour {{firstName}},', 'Félicitations, vous avez gagné une récompense :', '<strong>{{rewardDescription}}</strong>', 'Merci de faire connaître {{companyName}} !'],
    },
    campaignEndedWinners: {
      subject: 'Le programme est terminé : vous avez gagné !',
      preheader: 'Merci de votre participation.',
      body: ['Bonjour {{firstName}},', 'Notre programme de parrainage est terminé, et vous faites partie des gagnants. Nous vous contacterons au sujet de votre récompense.'],
    },
    campaignEndedNonWinners: {
      subject: 'Le programme est terminé',
      preheader: 'Merci de votre participation.',
      body: ['Bonjour {{firstName}},', 'Notre programme de parrainage est terminé. Merci d’y avoir participé et d’avoir fait passer le mot !'],
    },
    progressUpdateMonthly: {
      subject: 'Votre bilan du mois',
      preheader: 'Les résultats de votre lien ce mois-ci.',
      body: ['Bonjour {{firstName}},', 'Voici où en est votre lien de parrainage.', 'Proches parrainés jusqu’ici : {{referralCount}}', 'Continuez à le partager :'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Votre bilan du mois',
      preheader: 'Les résultats de votre lien ce mois-ci.',
      body: ['Bonjour {{firstName}},', 'Voici où en est votre lien d’affiliation.', 'Clients apportés jusqu’ici : {{referralCount}}', 'Continuez à le partager :'],
    },
    commissionGenerated: {
      subject: 'Vous avez gagné une commission de {{commissionAmount}}',
      preheader: 'Une vente grâce à votre lien.',
      body: ['Bonjour {{firstName}},', 'Un client que vous avez apporté vient d’effectuer un achat : vous gagnez une commission de {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'Une commission a été ajustée',
      preheader: 'Un remboursement ou une rétrofacturation a modifié une commission.',
      body: ['Bonjour {{firstName}},', 'Un remboursement ou une rétrofacturation a modifié l’une de vos commissions. Elle s’élève désormais à {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Un paiement de {{payoutAmount}} est en route',
      preheader: 'Votre prochain paiement est programmé.',
      body: ['Bonjour {{firstName}},', 'Votre paiement de {{payoutAmount}} est programmé et vous sera envoyé prochainement.'],
    },
    payoutSentSuccess: {
      subject: 'Nous vous avons envoyé {{payoutAmount}}',
      preheader: 'Votre paiement a été envoyé.',
      body: ['Bonjour {{firstName}},', 'Nous venons d’envoyer votre paiement de {{payoutAmount}}. Merci pour ce beau partenariat !'],
    },
    invite: {
      subject: '{{referrerFirstName}} vous invite à découvrir {{companyName}}',
      preheader: 'Une invitation personnelle de {{referrerFirstName}}.',
      body: ['Bonjour,', '{{referrerFirstName}} pense que {{companyName}} va vous plaire et vous a envoyé ce message :', '{{messageText}}', 'Inscrivez-vous avec son lien :'],
    },
    loginLink: {
      subject: 'Votre lien de connexion',
      preheader: 'Connectez-vous en un clic.',
      body: ['Bonjour {{firstName}},', 'Utilisez ce lien pour vous connecter. Il ne fonctionne qu’une fois et expire dans 15 minutes :', '<a href="{{loginUrl}}">Me connecter</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Confirmez votre adresse PayPal',
      preheader: 'Un clic pour confirmer où envoyer vos paiements.',
      body: ['Bonjour {{firstName}},', 'Merci de confirmer que vos paiements doivent être envoyés sur le compte PayPal {{paypalEmail}} :', '<a href="{{confirmationUrl}}">Confirmer mon adresse PayPal</a>'],
    },
    taxInfoMissing: {
      subject: 'Nous avons besoin de vos informations fiscales',
      preheader: 'Indispensables avant tout paiement.',
      body: ['Bonjour {{firstName}},', 'Avant de pouvoir vous verser vos paiements, nous avons besoin de vos informations fiscales. Cela ne prend que quelques minutes :', '<a href="{{taxInfoUrl}}">Ajouter mes informations fiscales</a>'],
    },
    taxInfoReceived: {
      subject: 'Nous avons reçu vos informations fiscales',
      preheader: 'Nous les examinons.',
      body: ['Bonjour {{firstName}},', 'Merci, nous avons bien reçu vos informations fiscales et les examinerons rapidement.'],
    },
    taxInfoApproved: {
      subject: 'Vos informations fiscales sont approuvées',
      preheader: 'Tout est prêt pour vos paiements.',
      body: ['Bonjour {{firstName}},', 'Vos informations fiscales ont été approuvées. Tout est prêt pour recevoir vos paiements.'],
    },
    taxInfoRejected: {
      subject: 'Vos informations fiscales sont à revoir',
      preheader: 'Merci de mettre à jour vos informations fiscales.',
      body: ['Bonjour {{firstName}},', 'Nous n’avons pas pu accepter vos informations fiscales. Voici le motif indiqué :', '{{reason}}', '<a href="{{taxInfoUrl}}">Mettre à jour mes informations fiscales</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Votre invitation n’a pas encore été acceptée', many: '{count} de vos invitations n’ont pas encore été acceptées', other: '{count} de vos invitations n’ont pas encore été acceptées' },
    followUpPreheader: 'Une petite relance aide souvent.',
    followUpGreeting: 'Bonjour {{firstName}},',
    followUpIntro: { one: 'Vous avez invité un proche à rejoindre {{companyName}}, mais il ne l’a pas encore fait :', many: 'Vous avez invité {count} proches à rejoindre {{companyName}}, mais ils ne l’ont pas encore fait :', other: 'Vous avez invité {count} proches à rejoindre {{companyName}}, mais ils ne l’ont pas encore fait :' },
    followUpAsk: 'Un petit rappel personnel aide souvent. Voici votre lien à partager de nouveau :',
    payoutConfirmSubject: 'Confirmez vos coordonnées de paiement {{payoutProvider}}',
    payoutConfirmPreheader: 'Un clic pour confirmer où envoyer vos paiements.',
    payoutConfirmGreeting: 'Bonjour {{firstName}},',
    payoutConfirmBody: 'Merci de confirmer le compte {{payoutProvider}} sur lequel nous devons envoyer vos paiements. Le lien ne fonctionne qu’une fois et expire dans 24 heures :',
    payoutConfirmButton: 'Confirmer mes coordonnées {{payoutProvider}}',
    affiliateInviteSubject: 'Vous êtes invité au programme d’affiliation de {{companyName}}',
    affiliateInvitePreheader: 'Devenez affilié et gagnez des commissions.',
    affiliateInviteGreeting: 'Bonjour {{firstName}},',
    affiliateInviteBody: 'Vous êtes invité à rejoindre le programme d’affiliation de {{companyName}}. Acceptez l’invitation pour obtenir votre lien d’affiliation et commencer à gagner des commissions :',
    affiliateInviteButton: 'Accepter l’invitation',
    affiliateInviteExpires: 'Le lien ne fonctionne qu’une fois et expire le {{expiresOn}}.',
  },
};
