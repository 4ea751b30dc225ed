// The default program emails in Korean (issue #27): polite 해요체; the greeting names the reader
// "{{firstName}}님", and "고객님" when no first name is known.
import type { EmailCopy } from './types.ts';

const hi = '{{firstName|고객}}님, 안녕하세요.';

export const koEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: '{{companyName}} 추천 링크가 준비되었어요',
      preheader: '친구에게 공유하고 리워드를 받으세요.',
      body: [hi, '참여해 주셔서 감사합니다! 나만의 추천 링크를 보내 드려요. 친구에게 공유하고, 친구가 가입하면 리워드를 받으세요.'],
    },
    welcomeNonReferredAffiliate: {
      subject: '{{companyName}} 제휴 프로그램에 오신 것을 환영합니다',
      preheader: '제휴 링크가 준비되었어요.',
      body: [hi, '함께하게 되어 반가워요! 제휴 링크를 보내 드려요. 저희를 추천하는 곳 어디서든 공유해 주세요. 이 링크로 발생한 판매마다 커미션을 받을 수 있어요.'],
    },
    welcomeReferred: {
      subject: '환영합니다! {{referrerFirstName}} 님의 추천으로 오셨네요',
      preheader: '나만의 추천 링크도 준비되었어요.',
      body: [hi, '가입해 주셔서 감사합니다! {{referrerFirstName}} 님이 추천해 주셨어요. 나만의 링크를 친구에게 공유하면 회원님도 리워드를 받을 수 있어요.'],
    },
    referralLinkViewedFirstTime: {
      subject: '누군가 회원님의 링크를 열었어요',
      preheader: '링크에 첫 방문이 생겼어요.',
      body: [hi, '좋은 소식이에요. 누군가 회원님의 링크를 처음으로 열었어요. 계속 공유해 주세요.'],
    },
    referralLinkUsed: {
      subject: '추천이 인정되었어요',
      preheader: '추천한 분의 참여가 완료되었어요.',
      body: [hi, '좋은 소식이에요. {{referredFirstName}} 님이 회원님의 링크로 참여해 추천이 인정되었어요.', '지금까지 추천한 친구 수: {{referralCount}}', '링크를 계속 공유해 주세요.'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} 님이 회원님의 링크로 가입했어요',
      preheader: '친구를 추천하셨어요.',
      body: [hi, '{{referredFirstName}} 님이 방금 회원님의 추천 링크로 가입했어요. 널리 알려 주셔서 감사합니다!'],
    },
    referredSignupAffiliate: {
      subject: '회원님의 링크로 새 고객이 가입했어요',
      preheader: '새로운 고객을 데려오셨어요.',
      body: [hi, '{{referredFirstName}} 님이 회원님의 제휴 링크로 가입했어요. 구매가 이루어지면 커미션을 받게 됩니다.'],
    },
    goalAchieved: {
      subject: '리워드를 받았어요!',
      preheader: '축하합니다. 리워드가 도착했어요.',
      body: [hi, '축하합니다! 리워드를 받았어요.', '<strong>{{rewardDescription}}</strong>', '{{companyName}}을(를) 알려 주셔서 감사합니다!'],
    },
    campaignEndedWinners: {
      subject: '프로그램 종료: 당첨되셨어요!',
      preheader: '참여해 주셔서 감사합니다.',
      body: [hi, '추천 프로그램이 종료되었고, 회원님이 당첨자로 선정되었어요. 리워드 관련해 곧 연락드릴게요.'],
    },
    campaignEndedNonWinners: {
      subject: '프로그램이 종료되었어요',
      preheader: '참여해 주셔서 감사합니다.',
      body: [hi, '추천 프로그램이 종료되었어요. 참여해 주시고 널리 알려 주셔서 감사합니다!'],
    },
    progressUpdateMonthly: {
      subject: '이번 달 리포트',
      preheader: '이번 달 링크 성과를 알려 드려요.',
      body: [hi, '추천 링크 현황을 알려 드려요.', '지금까지 추천한 친구 수: {{referralCount}}', '계속 공유해 주세요.'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: '이번 달 리포트',
      preheader: '이번 달 링크 성과를 알려 드려요.',
      body: [hi, '제휴 링크 현황을 알려 드려요.', '지금까지 추천한 고객 수: {{referralCount}}', '계속 공유해 주세요.'],
    },
    commissionGenerated: {
      subject: '{{commissionAmount}}의 커미션이 발생했어요',
      preheader: '회원님의 링크로 판매가 이루어졌어요.',
      body: [hi, '회원님이 추천한 고객이 방금 구매해 {{commissionAmount}}의 커미션이 발생했어요.'],
    },
    commissionAdjusted: {
      subject: '커미션이 조정되었어요',
      preheader: '환불 또는 지불 거절로 커미션이 변경되었어요.',
      body: [hi, '환불 또는 지불 거절로 커미션 한 건이 변경되었어요. 변경된 금액은 {{commissionAmount}}입니다.'],
    },
    payoutPending: {
      subject: '{{payoutAmount}} 지급이 예정되어 있어요',
      preheader: '다음 지급 일정이 잡혔어요.',
      body: [hi, '{{payoutAmount}} 지급이 예정되어 있으며 곧 송금될 예정이에요.'],
    },
    payoutSentSuccess: {
      subject: '{{payoutAmount}}을(를) 보내 드렸어요',
      preheader: '지급이 완료되었어요.',
      body: [hi, '방금 {{payoutAmount}} 지급을 완료했어요. 늘 함께해 주셔서 감사합니다!'],
    },
    invite: {
      subject: '{{referrerFirstName}} 님이 {{companyName}}에 초대했어요',
      preheader: '{{referrerFirstName}} 님이 보낸 초대장이에요.',
      body: ['안녕하세요.', '{{referrerFirstName}} 님이 {{companyName}}을(를) 마음에 들어 하실 것 같다며 메시지를 보냈어요.', '{{messageText}}', '아래 링크로 가입하세요.'],
    },
    loginLink: {
      subject: '로그인 링크',
      preheader: '클릭 한 번으로 로그인하세요.',
      body: [hi, '이 링크로 로그인하세요. 한 번만 사용할 수 있으며 15분 후 만료됩니다.', '<a href="{{loginUrl}}">로그인</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'PayPal 이메일을 확인해 주세요',
      preheader: '클릭 한 번으로 지급받을 곳을 확인하세요.',
      body: [hi, '지급액을 PayPal 계정 {{paypalEmail}}(으)로 받으실지 확인해 주세요.', '<a href="{{confirmationUrl}}">PayPal 이메일 확인</a>'],
    },
    taxInfoMissing: {
      subject: '세금 정보가 필요해요',
      preheader: '지급 전에 꼭 필요한 정보예요.',
      body: [hi, '지급을 보내 드리기 전에 세금 정보가 필요해요. 몇 분이면 끝나요.', '<a href="{{taxInfoUrl}}">세금 정보 입력</a>'],
    },
    taxInfoReceived: {
      subject: '세금 정보가 접수되었어요',
      preheader: '지금 검토하고 있어요.',
      body: [hi, '세금 정보를 보내 주셔서 감사합니다. 곧 검토할게요.'],
    },
    taxInfoApproved: {
      subject: '세금 정보가 승인되었어요',
      preheader: '지급받을 준비가 모두 끝났어요.',
      body: [hi, '세금 정보가 승인되었어요. 이제 지급받을 준비가 모두 끝났어요.'],
    },
    taxInfoRejected: {
      subject: '세금 정보를 다시 확인해 주세요',
      preheader: '세금 정보를 업데이트해 주세요.',
      body: [hi, '세금 정보를 승인할 수 없었어요. 전달받은 사유는 다음과 같아요.', '{{reason}}', '<a href="{{taxInfoUrl}}">세금 정보 업데이트</a>'],
    },
  },
  builtIn: {
    followUpSubject: { other: '아직 수락되지 않은 초대가 {count}건 있어요' },
    followUpPreheader: '가볍게 한 번 더 알려 보세요.',
    followUpGreeting: hi,
    followUpIntro: { other: '{{companyName}}에 초대한 분 중 {count}명이 아직 참여하지 않았어요.' },
    followUpAsk: '직접 한 번 더 알려 주면 효과가 좋아요. 다시 공유할 링크는 여기 있어요.',
    payoutConfirmSubject: '{{payoutProvider}} 지급 정보를 확인해 주세요',
    payoutConfirmPreheader: '클릭 한 번으로 지급받을 곳을 확인하세요.',
    payoutConfirmGreeting: hi,
    payoutConfirmBody: '지급액을 보내 드릴 {{payoutProvider}} 계정을 확인해 주세요. 링크는 한 번만 사용할 수 있으며 24시간 후 만료됩니다.',
    payoutConfirmButton: '{{payoutProvider}} 정보 확인',
    affiliateInviteSubject: '{{companyName}} 제휴 프로그램에 초대합니다',
    affiliateInvitePreheader: '제휴 파트너가 되어 커미션을 받으세요.',
    affiliateInviteGreeting: hi,
    affiliateInviteBody: '{{companyName}} 제휴 프로그램에 초대합니다. 초대를 수락하면 제휴 링크를 받고 커미션을 벌기 시작할 수 있어요.',
    affiliateInviteButton: '초대 수락',
    affiliateInviteExpires: '링크는 한 번만 사용할 수 있으며 {{expiresOn}}에 만료됩니다.',
  },
};
