// The default program emails in Spanish (issue #27): "tú", as consumer brands write in Spanish.
import type { EmailCopy } from './types.ts';

export const esEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Tu enlace de recomendación de {{companyName}}',
      preheader: 'Compártelo con tus amigos y gana recompensas.',
      body: ['Hola {{firstName}}:', '¡Gracias por unirte! Aquí tienes tu enlace personal de recomendación. Compártelo con tus amigos y ganarás recompensas cuando se registren:'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Te damos la bienvenida al programa de afiliados de {{companyName}}',
      preheader: 'Tu enlace de afiliado ya está listo.',
      body: ['Hola {{firstName}}:', '¡Bienvenido a bordo! Aquí tienes tu enlace de afiliado. Compártelo donde nos recomiendes y ganarás una comisión por cada venta que genere:'],
    },
    welcomeReferred: {
      subject: '¡Hola! {{referrerFirstName}} te ha recomendado',
      preheader: 'Tu enlace de recomendación también está listo.',
      body: ['Hola {{firstName}}:', '¡Gracias por unirte! {{referrerFirstName}} te ha recomendado, y tú también puedes ganar recompensas compartiendo tu propio enlace con tus amigos:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Alguien acaba de abrir tu enlace',
      preheader: 'Tu enlace ha recibido su primera visita.',
      body: ['Hola {{firstName}}:', 'Buenas noticias: alguien acaba de abrir tu enlace por primera vez. Sigue compartiéndolo:'],
    },
    referralLinkUsed: {
      subject: 'Tu recomendación cuenta',
      preheader: 'Una de tus recomendaciones se ha completado.',
      body: ['Hola {{firstName}}:', 'Buenas noticias: {{referredFirstName}} se ha unido con tu enlace y la recomendación ya cuenta para ti.', 'Amigos recomendados hasta ahora: {{referralCount}}', 'Sigue compartiendo tu enlace:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} se ha registrado con tu enlace',
      preheader: 'Has recomendado a un amigo.',
      body: ['Hola {{firstName}}:', '{{referredFirstName}} acaba de registrarse con tu enlace de recomendación. ¡Gracias por correr la voz!'],
    },
    referredSignupAffiliate: {
      subject: 'Un nuevo cliente se ha registrado con tu enlace',
      preheader: 'Has traído a alguien nuevo.',
      body: ['Hola {{firstName}}:', '{{referredFirstName}} se ha registrado con tu enlace de afiliado. Ganarás una comisión cuando compre.'],
    },
    goalAchieved: {
      subject: '¡Has ganado una recompensa!',
      preheader: 'Enhorabuena, tienes una recompensa.',
      body: ['Hola {{firstName}}:', 'Enhorabuena, has ganado una recompensa:', '<strong>{{rewardDescription}}</strong>', '¡Gracias por hablar de {{companyName}}!'],
    },
    campaignEndedWinners: {
      subject: 'El programa ha terminado: ¡has ganado!',
      preheader: 'Gracias por participar.',
      body: ['Hola {{firstName}}:', 'Nuestro programa de recomendación ha terminado y estás entre los ganadores. Nos pondremos en contacto contigo para tu recompensa.'],
    },
    campaignEndedNonWinners: {
      subject: 'El programa ha terminado',
      preheader: 'Gracias por participar.',
      body: ['Hola {{firstName}}:', 'Nuestro programa de recomendación ha terminado. ¡Gracias por participar y por correr la voz!'],
    },
    progressUpdateMonthly: {
      subject: 'Tu resumen mensual',
      preheader: 'Así le ha ido a tu enlace este mes.',
      body: ['Hola {{firstName}}:', 'Así va tu enlace de recomendación.', 'Amigos recomendados hasta ahora: {{referralCount}}', 'Sigue compartiéndolo:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Tu resumen mensual',
      preheader: 'Así le ha ido a tu enlace este mes.',
      body: ['Hola {{firstName}}:', 'Así va tu enlace de afiliado.', 'Clientes recomendados hasta ahora: {{referralCount}}', 'Sigue compartiéndolo:'],
    },
    commissionGenerated: {
      subject: 'Has ganado una comisión de {{commissionAmount}}',
      preheader: 'Una venta a través de tu enlace.',
      body: ['Hola {{firstName}}:', 'Un cliente que recomendaste acaba de hacer una compra y has ganado una comisión de {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'Se ha ajustado una comisión',
      preheader: 'Un reembolso o contracargo ha cambiado una comisión.',
      body: ['Hola {{firstName}}:', 'Un reembolso o contracargo ha cambiado una de tus comisiones. Ahora es de {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Un pago de {{payoutAmount}} está en camino',
      preheader: 'Tu próximo pago está programado.',
      body: ['Hola {{firstName}}:', 'Tu pago de {{payoutAmount}} está programado y se enviará pronto.'],
    },
    payoutSentSuccess: {
      subject: 'Te hemos enviado {{payoutAmount}}',
      preheader: 'Tu pago se ha enviado.',
      body: ['Hola {{firstName}}:', 'Acabamos de enviarte tu pago de {{payoutAmount}}. ¡Gracias por ser un gran socio!'],
    },
    invite: {
      subject: '{{referrerFirstName}} te invita a {{companyName}}',
      preheader: 'Una invitación personal de {{referrerFirstName}}.',
      body: ['¡Hola!', '{{referrerFirstName}} cree que te gustará {{companyName}} y te envía este mensaje:', '{{messageText}}', 'Regístrate con su enlace:'],
    },
    loginLink: {
      subject: 'Tu enlace para iniciar sesión',
      preheader: 'Inicia sesión con un clic.',
      body: ['Hola {{firstName}}:', 'Usa este enlace para iniciar sesión. Funciona una sola vez y caduca en 15 minutos:', '<a href="{{loginUrl}}">Iniciar sesión</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Confirma tu correo de PayPal',
      preheader: 'Un clic para confirmar adónde enviamos tus pagos.',
      body: ['Hola {{firstName}}:', 'Confirma que tus pagos deben ir a la cuenta de PayPal {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Confirmar mi correo de PayPal</a>'],
    },
    taxInfoMissing: {
      subject: 'Necesitamos tu información fiscal',
      preheader: 'Es necesaria antes de poder pagarte.',
      body: ['Hola {{firstName}}:', 'Antes de enviarte pagos necesitamos tu información fiscal. Solo te llevará unos minutos:', '<a href="{{taxInfoUrl}}">Añadir mi información fiscal</a>'],
    },
    taxInfoReceived: {
      subject: 'Hemos recibido tu información fiscal',
      preheader: 'La estamos revisando.',
      body: ['Hola {{firstName}}:', 'Gracias, hemos recibido tu información fiscal y la revisaremos en breve.'],
    },
    taxInfoApproved: {
      subject: 'Tu información fiscal está aprobada',
      preheader: 'Todo listo para tus pagos.',
      body: ['Hola {{firstName}}:', 'Tu información fiscal se ha aprobado. Ya está todo listo para que recibas pagos.'],
    },
    taxInfoRejected: {
      subject: 'Tu información fiscal necesita una revisión',
      preheader: 'Actualiza tu información fiscal.',
      body: ['Hola {{firstName}}:', 'No hemos podido aceptar tu información fiscal. Este es el motivo que nos han indicado:', '{{reason}}', '<a href="{{taxInfoUrl}}">Actualizar mi información fiscal</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Tu invitación aún no se ha aceptado', many: '{count} de tus invitaciones aún no se han aceptado', other: '{count} de tus invitaciones aún no se han aceptado' },
    followUpPreheader: 'Un recordatorio amable suele ayudar.',
    followUpGreeting: 'Hola {{firstName}}:',
    followUpIntro: { one: 'Invitaste a {{companyName}} a un amigo que aún no se ha unido:', many: 'Invitaste a {{companyName}} a {count} amigos que aún no se han unido:', other: 'Invitaste a {{companyName}} a {count} amigos que aún no se han unido:' },
    followUpAsk: 'Un recordatorio personal suele ayudar. Aquí tienes tu enlace para volver a compartirlo:',
    payoutConfirmSubject: 'Confirma tus datos de pago de {{payoutProvider}}',
    payoutConfirmPreheader: 'Un clic para confirmar adónde enviamos tus pagos.',
    payoutConfirmGreeting: 'Hola {{firstName}}:',
    payoutConfirmBody: 'Confirma la cuenta de {{payoutProvider}} a la que debemos enviar tus pagos. El enlace funciona una sola vez y caduca en 24 horas:',
    payoutConfirmButton: 'Confirmar mis datos de {{payoutProvider}}',
    affiliateInviteSubject: 'Te invitamos al programa de afiliados de {{companyName}}',
    affiliateInvitePreheader: 'Hazte afiliado y gana comisiones.',
    affiliateInviteGreeting: 'Hola {{firstName}}:',
    affiliateInviteBody: 'Te invitamos a unirte al programa de afiliados de {{companyName}}. Acepta la invitación para obtener tu enlace de afiliado y empezar a ganar comisiones:',
    affiliateInviteButton: 'Aceptar la invitación',
    affiliateInviteExpires: 'El enlace funciona una sola vez y caduca el {{expiresOn}}.',
  },
};
