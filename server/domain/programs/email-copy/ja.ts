// The default program emails in Japanese (issue #27): polite です・ます form; the greeting names the
// reader "{{firstName}}様", and "お客様" when no first name is known.
import type { EmailCopy } from './types.ts';

const hi = '{{firstName|お客}}様';

export const jaEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: '{{companyName}} の紹介リンクをお届けします',
      preheader: 'お友達に共有して特典を受け取りましょう。',
      body: [hi, 'ご参加ありがとうございます。あなた専用の紹介リンクはこちらです。お友達に共有して、お友達が登録すると特典を受け取れます。'],
    },
    welcomeNonReferredAffiliate: {
      subject: '{{companyName}} のアフィリエイトプログラムへようこそ',
      preheader: 'アフィリエイトリンクの準備ができました。',
      body: [hi, 'ご参加ありがとうございます。あなたのアフィリエイトリンクはこちらです。私たちを紹介する場所で共有していただくと、このリンク経由の売上ごとにコミッションをお支払いします。'],
    },
    welcomeReferred: {
      subject: 'ようこそ！{{referrerFirstName}} さんからのご紹介です',
      preheader: 'あなたの紹介リンクも準備できています。',
      body: [hi, 'ご参加ありがとうございます。{{referrerFirstName}} さんからのご紹介です。あなたも自分のリンクをお友達に共有すると、特典を受け取れます。'],
    },
    referralLinkViewedFirstTime: {
      subject: 'あなたのリンクが開かれました',
      preheader: 'リンクに初めてのアクセスがありました。',
      body: [hi, 'うれしいお知らせです。あなたのリンクが初めて開かれました。引き続き共有してください。'],
    },
    referralLinkUsed: {
      subject: '紹介が成立しました',
      preheader: 'ご紹介いただいた方の手続きが完了しました。',
      body: [hi, 'うれしいお知らせです。{{referredFirstName}} さんがあなたのリンクから参加し、紹介が成立しました。', 'これまでに紹介した人数：{{referralCount}}', '引き続きリンクを共有してください。'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} さんがあなたのリンクから登録しました',
      preheader: 'お友達を紹介いただきました。',
      body: [hi, '{{referredFirstName}} さんがあなたの紹介リンクから登録しました。ご紹介ありがとうございます。'],
    },
    referredSignupAffiliate: {
      subject: 'あなたのリンクから新しいお客様が登録しました',
      preheader: '新しいお客様をご紹介いただきました。',
      body: [hi, '{{referredFirstName}} さんがあなたのアフィリエイトリンクから登録しました。購入が発生するとコミッションが付与されます。'],
    },
    goalAchieved: {
      subject: '特典を獲得しました！',
      preheader: 'おめでとうございます。特典をお受け取りください。',
      body: [hi, 'おめでとうございます。特典を獲得しました。', '<strong>{{rewardDescription}}</strong>', '{{companyName}} をご紹介いただき、ありがとうございます。'],
    },
    campaignEndedWinners: {
      subject: 'プログラム終了：当選のお知らせ',
      preheader: 'ご参加ありがとうございました。',
      body: [hi, '紹介プログラムは終了しました。あなたは当選者に選ばれました。特典については追ってご連絡します。'],
    },
    campaignEndedNonWinners: {
      subject: 'プログラム終了のお知らせ',
      preheader: 'ご参加ありがとうございました。',
      body: [hi, '紹介プログラムは終了しました。ご参加とご紹介、誠にありがとうございました。'],
    },
    progressUpdateMonthly: {
      subject: '今月のレポート',
      preheader: '今月の紹介リンクの成果です。',
      body: [hi, '紹介リンクの状況をお知らせします。', 'これまでに紹介した人数：{{referralCount}}', '引き続き共有してください。'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: '今月のレポート',
      preheader: '今月のアフィリエイトリンクの成果です。',
      body: [hi, 'アフィリエイトリンクの状況をお知らせします。', 'これまでに紹介したお客様の数：{{referralCount}}', '引き続き共有してください。'],
    },
    commissionGenerated: {
      subject: '{{commissionAmount}} のコミッションが発生しました',
      preheader: 'あなたのリンクから購入がありました。',
      body: [hi, 'ご紹介いただいたお客様が購入し、{{commissionAmount}} のコミッションが発生しました。'],
    },
    commissionAdjusted: {
      subject: 'コミッションが調整されました',
      preheader: '返金またはチャージバックによりコミッションが変更されました。',
      body: [hi, '返金またはチャージバックにより、コミッションの1件が変更されました。変更後の金額は {{commissionAmount}} です。'],
    },
    payoutPending: {
      subject: '{{payoutAmount}} のお支払いを予定しています',
      preheader: '次回のお支払いが確定しました。',
      body: [hi, '{{payoutAmount}} のお支払いが予定されており、まもなく送金されます。'],
    },
    payoutSentSuccess: {
      subject: '{{payoutAmount}} を送金しました',
      preheader: 'お支払いが完了しました。',
      body: [hi, '{{payoutAmount}} のお支払いを送金しました。いつもご協力いただき、ありがとうございます。'],
    },
    invite: {
      subject: '{{referrerFirstName}} さんから {{companyName}} への招待が届きました',
      preheader: '{{referrerFirstName}} さんからの招待です。',
      body: ['こんにちは。', '{{referrerFirstName}} さんが、あなたにぴったりだと思って {{companyName}} を紹介しています。メッセージはこちらです。', '{{messageText}}', 'こちらのリンクから登録できます。'],
    },
    loginLink: {
      subject: 'ログイン用リンク',
      preheader: 'ワンクリックでログインできます。',
      body: [hi, 'こちらのリンクからログインしてください。リンクは1回のみ有効で、15分後に期限が切れます。', '<a href="{{loginUrl}}">ログイン</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'PayPal のメールアドレスを確認してください',
      preheader: 'ワンクリックで送金先を確認できます。',
      body: [hi, 'お支払いの送金先を PayPal アカウント {{paypalEmail}} にしてよいか、ご確認ください。', '<a href="{{confirmationUrl}}">PayPal のメールアドレスを確認する</a>'],
    },
    taxInfoMissing: {
      subject: '税務情報のご提出をお願いします',
      preheader: 'お支払いの前に必要です。',
      body: [hi, 'お支払いの前に、税務情報のご提出が必要です。数分で完了します。', '<a href="{{taxInfoUrl}}">税務情報を入力する</a>'],
    },
    taxInfoReceived: {
      subject: '税務情報を受け付けました',
      preheader: '現在確認しています。',
      body: [hi, '税務情報をご提出いただき、ありがとうございます。まもなく確認いたします。'],
    },
    taxInfoApproved: {
      subject: '税務情報が承認されました',
      preheader: 'お支払いの準備が整いました。',
      body: [hi, '税務情報が承認されました。お支払いを受け取る準備が整いました。'],
    },
    taxInfoRejected: {
      subject: '税務情報の再確認をお願いします',
      preheader: '税務情報を更新してください。',
      body: [hi, '申し訳ありませんが、税務情報を受け付けられませんでした。理由は次のとおりです。', '{{reason}}', '<a href="{{taxInfoUrl}}">税務情報を更新する</a>'],
    },
  },
  builtIn: {
    followUpSubject: { other: 'まだ承諾されていない招待が{count}件あります' },
    followUpPreheader: 'ひと声かけると効果的です。',
    followUpGreeting: hi,
    followUpIntro: { other: '{{companyName}} に招待した方のうち、{count}人がまだ参加していません。' },
    followUpAsk: '直接ひと声かけると効果的です。もう一度共有するためのリンクはこちらです。',
    payoutConfirmSubject: '{{payoutProvider}} の支払い先情報を確認してください',
    payoutConfirmPreheader: 'ワンクリックで送金先を確認できます。',
    payoutConfirmGreeting: hi,
    payoutConfirmBody: 'お支払いの送金先となる {{payoutProvider}} アカウントをご確認ください。リンクは1回のみ有効で、24時間後に期限が切れます。',
    payoutConfirmButton: '{{payoutProvider}} の情報を確認する',
    affiliateInviteSubject: '{{companyName}} のアフィリエイトプログラムへのご招待',
    affiliateInvitePreheader: 'アフィリエイトになってコミッションを獲得しましょう。',
    affiliateInviteGreeting: hi,
    affiliateInviteBody: '{{companyName}} のアフィリエイトプログラムにご招待します。招待を承諾すると、アフィリエイトリンクを受け取り、コミッションの獲得を始められます。',
    affiliateInviteButton: '招待を承諾する',
    affiliateInviteExpires: 'リンクは1回のみ有効で、{{expiresOn}}に期限が切れます。',
  },
};
