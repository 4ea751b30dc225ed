// The default program emails in Brazilian Portuguese (issue #27): "você", as Brazilian brands write.
import type { EmailCopy } from './types.ts';

export const ptBREmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Seu link de indicação da {{companyName}}',
      preheader: 'Compartilhe com amigos e ganhe recompensas.',
      body: ['Olá {{firstName}},', 'Obrigado por participar! Aqui está seu link pessoal de indicação. Compartilhe com seus amigos e ganhe recompensas quando eles se cadastrarem:'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Boas-vindas ao programa de afiliados da {{companyName}}',
      preheader: 'Seu link de afiliado está pronto.',
      body: ['Olá {{firstName}},', 'Boas-vindas! Aqui está seu link de afiliado. Compartilhe onde você nos recomendar e ganhe comissão em cada venda que ele trouxer:'],
    },
    welcomeReferred: {
      subject: 'Boas-vindas! {{referrerFirstName}} indicou você',
      preheader: 'Seu link de indicação também já está pronto.',
      body: ['Olá {{firstName}},', 'Obrigado por participar! {{referrerFirstName}} indicou você, e você também pode ganhar recompensas compartilhando seu próprio link com amigos:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Alguém acabou de abrir seu link',
      preheader: 'Seu link recebeu a primeira visita.',
      body: ['Olá {{firstName}},', 'Boa notícia: alguém acabou de abrir seu link pela primeira vez. Continue compartilhando:'],
    },
    referralLinkUsed: {
      subject: 'Sua indicação valeu',
      preheader: 'Uma indicação sua foi concluída.',
      body: ['Olá {{firstName}},', 'Boa notícia: {{referredFirstName}} entrou pelo seu link, e a indicação já conta para você.', 'Amigos indicados até agora: {{referralCount}}', 'Continue compartilhando seu link:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} se cadastrou com seu link',
      preheader: 'Você indicou um amigo.',
      body: ['Olá {{firstName}},', '{{referredFirstName}} acabou de se cadastrar pelo seu link de indicação. Obrigado por espalhar a novidade!'],
    },
    referredSignupAffiliate: {
      subject: 'Um novo cliente se cadastrou pelo seu link',
      preheader: 'Você trouxe alguém novo.',
      body: ['Olá {{firstName}},', '{{referredFirstName}} se cadastrou pelo seu link de afiliado. Você ganha comissão quando essa pessoa comprar.'],
    },
    goalAchieved: {
      subject: 'Você ganhou uma recompensa!',
      preheader: 'Parabéns, uma recompensa é sua.',
      body: ['Olá {{firstName}},', 'Parabéns, você ganhou uma recompensa:', '<strong>{{rewardDescription}}</strong>', 'Obrigado por falar da {{companyName}}!'],
    },
    campaignEndedWinners: {
      subject: 'O programa terminou: você ganhou!',
      preheader: 'Obrigado por participar.',
      body: ['Olá {{firstName}},', 'Nosso programa de indicação terminou, e você está entre os vencedores. Entraremos em contato sobre sua recompensa.'],
    },
    campaignEndedNonWinners: {
      subject: 'O programa terminou',
      preheader: 'Obrigado por participar.',
      body: ['Olá {{firstName}},', 'Nosso programa de indicação terminou. Obrigado por participar e por espalhar a novidade!'],
    },
    progressUpdateMonthly: {
      subject: 'Seu resumo do mês',
      preheader: 'Como seu link foi neste mês.',
      body: ['Olá {{firstName}},', 'Veja como está seu link de indicação.', 'Amigos indicados até agora: {{referralCount}}', 'Continue compartilhando:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Seu resumo do mês',
      preheader: 'Como seu link foi neste mês.',
      body: ['Olá {{firstName}},', 'Veja como está seu link de afiliado.', 'Clientes indicados até agora: {{referralCount}}', 'Continue compartilhando:'],
    },
    commissionGenerated: {
      subject: 'Você ganhou uma comissão de {{commissionAmount}}',
      preheader: 'Uma venda pelo seu link.',
      body: ['Olá {{firstName}},', 'Um cliente que você indicou acabou de fazer uma compra, e você ganhou uma comissão de {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'Uma comissão foi ajustada',
      preheader: 'Um reembolso ou estorno alterou uma comissão.',
      body: ['Olá {{firstName}},', 'Um reembolso ou estorno alterou uma das suas comissões. Agora ela é de {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Um pagamento de {{payoutAmount}} está a caminho',
      preheader: 'Seu próximo pagamento está agendado.',
      body: ['Olá {{firstName}},', 'Seu pagamento de {{payoutAmount}} está agendado e será enviado em breve.'],
    },
    payoutSentSuccess: {
      subject: 'Enviamos {{payoutAmount}} para você',
      preheader: 'Seu pagamento foi enviado.',
      body: ['Olá {{firstName}},', 'Acabamos de enviar seu pagamento de {{payoutAmount}}. Obrigado pela ótima parceria!'],
    },
    invite: {
      subject: '{{referrerFirstName}} convidou você para a {{companyName}}',
      preheader: 'Um convite pessoal de {{referrerFirstName}}.',
      body: ['Olá,', '{{referrerFirstName}} acha que você vai gostar da {{companyName}} e enviou esta mensagem:', '{{messageText}}', 'Cadastre-se pelo link:'],
    },
    loginLink: {
      subject: 'Seu link de acesso',
      preheader: 'Entre com um clique.',
      body: ['Olá {{firstName}},', 'Use este link para entrar. Ele funciona uma vez e expira em 15 minutos:', '<a href="{{loginUrl}}">Entrar</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Confirme seu e-mail do PayPal',
      preheader: 'Um clique para confirmar para onde enviamos seus pagamentos.',
      body: ['Olá {{firstName}},', 'Confirme que seus pagamentos devem ir para a conta do PayPal {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Confirmar meu e-mail do PayPal</a>'],
    },
    taxInfoMissing: {
      subject: 'Precisamos das suas informações fiscais',
      preheader: 'Necessárias antes de podermos pagar você.',
      body: ['Olá {{firstName}},', 'Antes de enviar seus pagamentos, precisamos das suas informações fiscais. Leva só alguns minutos:', '<a href="{{taxInfoUrl}}">Adicionar minhas informações fiscais</a>'],
    },
    taxInfoReceived: {
      subject: 'Recebemos suas informações fiscais',
      preheader: 'Estamos analisando.',
      body: ['Olá {{firstName}},', 'Obrigado, recebemos suas informações fiscais e vamos analisá-las em breve.'],
    },
    taxInfoApproved: {
      subject: 'Suas informações fiscais foram aprovadas',
      preheader: 'Tudo pronto para os pagamentos.',
      body: ['Olá {{firstName}},', 'Suas informações fiscais foram aprovadas. Está tudo pronto para você receber pagamentos.'],
    },
    taxInfoRejected: {
      subject: 'Suas informações fiscais precisam de revisão',
      preheader: 'Atualize suas informações fiscais.',
      body: ['Olá {{firstName}},', 'Não conseguimos aceitar suas informações fiscais. Este foi o motivo informado:', '{{reason}}', '<a href="{{taxInfoUrl}}">Atualizar minhas informações fiscais</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Seu convite ainda não foi aceito', many: '{count} dos seus convites ainda não foram aceitos', other: '{count} dos seus convites ainda não foram aceitos' },
    followUpPreheader: 'Um lembrete gentil costuma ajudar.',
    followUpGreeting: 'Olá {{firstName}},',
    followUpIntro: { one: 'Você convidou um amigo para a {{companyName}} que ainda não entrou:', many: 'Você convidou {count} amigos para a {{companyName}} que ainda não entraram:', other: 'Você convidou {count} amigos para a {{companyName}} que ainda não entraram:' },
    followUpAsk: 'Um lembrete pessoal costuma ajudar. Aqui está seu link para compartilhar de novo:',
    payoutConfirmSubject: 'Confirme seus dados de pagamento do {{payoutProvider}}',
    payoutConfirmPreheader: 'Um clique para confirmar para onde enviamos seus pagamentos.',
    payoutConfirmGreeting: 'Olá {{firstName}},',
    payoutConfirmBody: 'Confirme a conta do {{payoutProvider}} para a qual devemos enviar seus pagamentos. O link funciona uma vez e expira em 24 horas:',
    payoutConfirmButton: 'Confirmar meus dados do {{payoutProvider}}',
    affiliateInviteSubject: 'Você foi convidado para o programa de afiliados da {{companyName}}',
    affiliateInvitePreheader: 'Seja afiliado e ganhe comissões.',
    affiliateInviteGreeting: 'Olá {{firstName}},',
    affiliateInviteBody: 'Você foi convidado para participar do programa de afiliados da {{companyName}}. Aceite o convite para receber seu link de afiliado e começar a ganhar comissões:',
    affiliateInviteButton: 'Aceitar o convite',
    affiliateInviteExpires: 'O link funciona uma vez e expira em {{expiresOn}}.',
  },
};
