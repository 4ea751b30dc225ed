// The default program emails in Simplified Chinese (issue #27): polite "您"; the greeting names the
// reader, "亲爱的用户" when no first name is known.
import type { EmailCopy } from './types.ts';

const hi = '{{firstName|亲爱的用户}}，您好！';

export const zhCNEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: '您的 {{companyName}} 推荐链接',
      preheader: '分享给好友，赢取奖励。',
      body: [hi, '感谢您的加入！这是您的专属推荐链接。分享给好友，他们注册后您即可获得奖励：'],
    },
    welcomeNonReferredAffiliate: {
      subject: '欢迎加入 {{companyName}} 推广合作计划',
      preheader: '您的推广链接已准备就绪。',
      body: [hi, '欢迎加入！这是您的推广链接。在您推荐我们的任何地方分享它，通过该链接产生的每笔销售您都能获得佣金：'],
    },
    welcomeReferred: {
      subject: '欢迎！{{referrerFirstName}} 推荐了您',
      preheader: '您的专属推荐链接也已准备就绪。',
      body: [hi, '感谢您的加入！您是由 {{referrerFirstName}} 推荐的。将您自己的链接分享给好友，您也能获得奖励：'],
    },
    referralLinkViewedFirstTime: {
      subject: '有人刚刚打开了您的链接',
      preheader: '您的链接迎来了第一位访客。',
      body: [hi, '好消息：有人首次打开了您的链接。继续分享吧：'],
    },
    referralLinkUsed: {
      subject: '您的推荐已生效',
      preheader: '您推荐的一位好友已完成推荐。',
      body: [hi, '好消息：{{referredFirstName}} 通过您的链接加入了，这次推荐已计入您的名下。', '已推荐好友人数：{{referralCount}}', '继续分享您的链接：'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} 通过您的链接注册了',
      preheader: '您成功推荐了一位好友。',
      body: [hi, '{{referredFirstName}} 刚刚通过您的推荐链接完成了注册。感谢您的推荐！'],
    },
    referredSignupAffiliate: {
      subject: '有新客户通过您的链接注册',
      preheader: '您带来了一位新客户。',
      body: [hi, '{{referredFirstName}} 通过您的推广链接完成了注册。对方下单后，您将获得佣金。'],
    },
    goalAchieved: {
      subject: '您获得了一份奖励！',
      preheader: '恭喜，奖励已归您所有。',
      body: [hi, '恭喜您获得了一份奖励：', '<strong>{{rewardDescription}}</strong>', '感谢您帮助宣传 {{companyName}}！'],
    },
    campaignEndedWinners: {
      subject: '计划已结束：恭喜您获奖！',
      preheader: '感谢您的参与。',
      body: [hi, '我们的推荐计划已经结束，您是获奖者之一。我们会尽快与您联系，为您发放奖励。'],
    },
    campaignEndedNonWinners: {
      subject: '计划已结束',
      preheader: '感谢您的参与。',
      body: [hi, '我们的推荐计划已经结束。感谢您的参与和推荐！'],
    },
    progressUpdateMonthly: {
      subject: '您的月度报告',
      preheader: '本月您的链接表现如何。',
      body: [hi, '以下是您推荐链接的最新情况。', '已推荐好友人数：{{referralCount}}', '继续分享吧：'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: '您的月度报告',
      preheader: '本月您的链接表现如何。',
      body: [hi, '以下是您推广链接的最新情况。', '已带来客户数：{{referralCount}}', '继续分享吧：'],
    },
    commissionGenerated: {
      subject: '您获得了 {{commissionAmount}} 的佣金',
      preheader: '您的链接带来了一笔销售。',
      body: [hi, '您推荐的一位客户刚刚完成了购买，您获得了 {{commissionAmount}} 的佣金。'],
    },
    commissionAdjusted: {
      subject: '一笔佣金已调整',
      preheader: '退款或拒付导致一笔佣金发生变化。',
      body: [hi, '由于退款或拒付，您的一笔佣金发生了变化，调整后为 {{commissionAmount}}。'],
    },
    payoutPending: {
      subject: '一笔 {{payoutAmount}} 的付款即将到账',
      preheader: '您的下一笔付款已安排。',
      body: [hi, '您的 {{payoutAmount}} 付款已安排，很快就会发出。'],
    },
    payoutSentSuccess: {
      subject: '我们已向您付款 {{payoutAmount}}',
      preheader: '您的付款已发出。',
      body: [hi, '我们刚刚向您发出了 {{payoutAmount}} 的付款。感谢您一直以来的合作！'],
    },
    invite: {
      subject: '{{referrerFirstName}} 邀请您体验 {{companyName}}',
      preheader: '来自 {{referrerFirstName}} 的专属邀请。',
      body: ['您好！', '{{referrerFirstName}} 觉得您会喜欢 {{companyName}}，并给您留言：', '{{messageText}}', '通过 Ta 的链接注册：'],
    },
    loginLink: {
      subject: '您的登录链接',
      preheader: '一键登录。',
      body: [hi, '请使用此链接登录。链接仅可使用一次，15 分钟后失效：', '<a href="{{loginUrl}}">登录</a>'],
    },
    paypalEmailConfirmation: {
      subject: '请确认您的 PayPal 邮箱',
      preheader: '一键确认您的收款账户。',
      body: [hi, '请确认将付款发送至 PayPal 账户 {{paypalEmail}}：', '<a href="{{confirmationUrl}}">确认我的 PayPal 邮箱</a>'],
    },
    taxInfoMissing: {
      subject: '我们需要您的税务信息',
      preheader: '付款前必须提供。',
      body: [hi, '在向您付款之前，我们需要您的税务信息。只需几分钟即可完成：', '<a href="{{taxInfoUrl}}">填写税务信息</a>'],
    },
    taxInfoReceived: {
      subject: '我们已收到您的税务信息',
      preheader: '正在审核中。',
      body: [hi, '感谢您提交税务信息，我们会尽快审核。'],
    },
    taxInfoApproved: {
      subject: '您的税务信息已通过审核',
      preheader: '一切就绪，可以收款了。',
      body: [hi, '您的税务信息已通过审核，现在可以正常收款了。'],
    },
    taxInfoRejected: {
      subject: '您的税务信息需要重新核对',
      preheader: '请更新您的税务信息。',
      body: [hi, '很抱歉，我们无法接受您的税务信息。原因如下：', '{{reason}}', '<a href="{{taxInfoUrl}}">更新税务信息</a>'],
    },
  },
  builtIn: {
    followUpSubject: { other: '您有 {count} 个邀请尚未被接受' },
    followUpPreheader: '友好地提醒一下往往很有用。',
    followUpGreeting: hi,
    followUpIntro: { other: '您邀请加入 {{companyName}} 的好友中，有 {count} 位尚未加入：' },
    followUpAsk: '亲自提醒一下往往很有效。这是您可以再次分享的链接：',
    payoutConfirmSubject: '请确认您的 {{payoutProvider}} 收款信息',
    payoutConfirmPreheader: '一键确认您的收款账户。',
    payoutConfirmGreeting: hi,
    payoutConfirmBody: '请确认我们应向哪个 {{payoutProvider}} 账户付款。链接仅可使用一次，24 小时后失效：',
    payoutConfirmButton: '确认我的 {{payoutProvider}} 信息',
    affiliateInviteSubject: '诚邀您加入 {{companyName}} 推广合作计划',
    affiliateInvitePreheader: '成为推广合作伙伴，赚取佣金。',
    affiliateInviteGreeting: hi,
    affiliateInviteBody: '诚邀您加入 {{companyName}} 推广合作计划。接受邀请即可获得您的推广链接，开始赚取佣金：',
    affiliateInviteButton: '接受邀请',
    affiliateInviteExpires: '链接仅可使用一次，将于 {{expiresOn}} 失效。',
  },
};
