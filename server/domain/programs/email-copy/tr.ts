// The default program emails in Turkish (issue #27): polite "siz", as Turkish product copy usually is.
import type { EmailCopy } from './types.ts';

export const trEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: '{{companyName}} tavsiye bağlantınız',
      preheader: 'Arkadaşlarınızla paylaşın, ödüller kazanın.',
      body: ['Merhaba {{firstName}},', 'Aramıza katıldığınız için teşekkürler! Kişisel tavsiye bağlantınız burada. Arkadaşlarınızla paylaşın; onlar kaydoldukça siz ödül kazanırsınız:'],
    },
    welcomeNonReferredAffiliate: {
      subject: '{{companyName}} satış ortaklığı programına hoş geldiniz',
      preheader: 'Satış ortaklığı bağlantınız hazır.',
      body: ['Merhaba {{firstName}},', 'Aramıza hoş geldiniz! Satış ortaklığı bağlantınız burada. Bizi önerdiğiniz her yerde paylaşın; getirdiği her satıştan komisyon kazanırsınız:'],
    },
    welcomeReferred: {
      subject: 'Hoş geldiniz! Sizi {{referrerFirstName}} tavsiye etti',
      preheader: 'Kendi tavsiye bağlantınız da hazır.',
      body: ['Merhaba {{firstName}},', 'Aramıza katıldığınız için teşekkürler! Sizi {{referrerFirstName}} tavsiye etti. Kendi bağlantınızı arkadaşlarınızla paylaşarak siz de ödül kazanabilirsiniz:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Biri bağlantınızı az önce açtı',
      preheader: 'Bağlantınız ilk ziyaretini aldı.',
      body: ['Merhaba {{firstName}},', 'Güzel haber: Biri bağlantınızı ilk kez açtı. Paylaşmaya devam edin:'],
    },
    referralLinkUsed: {
      subject: 'Tavsiyeniz sayıldı',
      preheader: 'Tavsiyelerinizden biri tamamlandı.',
      body: ['Merhaba {{firstName}},', 'Güzel haber: {{referredFirstName}} bağlantınız üzerinden katıldı ve bu tavsiye artık size sayılıyor.', 'Şimdiye kadar tavsiye ettiğiniz arkadaş sayısı: {{referralCount}}', 'Bağlantınızı paylaşmaya devam edin:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} bağlantınızla kaydoldu',
      preheader: 'Bir arkadaşınızı getirdiniz.',
      body: ['Merhaba {{firstName}},', '{{referredFirstName}} az önce tavsiye bağlantınızla kaydoldu. Bizi tanıttığınız için teşekkürler!'],
    },
    referredSignupAffiliate: {
      subject: 'Bağlantınızla yeni bir müşteri kaydoldu',
      preheader: 'Yeni birini getirdiniz.',
      body: ['Merhaba {{firstName}},', '{{referredFirstName}} satış ortaklığı bağlantınızla kaydoldu. Alışveriş yaptığında komisyon kazanacaksınız.'],
    },
    goalAchieved: {
      subject: 'Bir ödül kazandınız!',
      preheader: 'Tebrikler, ödülünüz hazır.',
      body: ['Merhaba {{firstName}},', 'Tebrikler, bir ödül kazandınız:', '<strong>{{rewardDescription}}</strong>', '{{companyName}} hakkında bilgi yaydığınız için teşekkürler!'],
    },
    campaignEndedWinners: {
      subject: 'Program sona erdi: Kazandınız!',
      preheader: 'Katıldığınız için teşekkürler.',
      body: ['Merhaba {{firstName}},', 'Tavsiye programımız sona erdi ve siz kazananlar arasındasınız. Ödülünüzle ilgili sizinle iletişime geçeceğiz.'],
    },
    campaignEndedNonWinners: {
      subject: 'Program sona erdi',
      preheader: 'Katıldığınız için teşekkürler.',
      body: ['Merhaba {{firstName}},', 'Tavsiye programımız sona erdi. Katıldığınız ve bizi tanıttığınız için teşekkürler!'],
    },
    progressUpdateMonthly: {
      subject: 'Aylık özetiniz',
      preheader: 'Bağlantınızın bu ayki durumu.',
      body: ['Merhaba {{firstName}},', 'Tavsiye bağlantınızın durumu şöyle.', 'Şimdiye kadar tavsiye ettiğiniz arkadaş sayısı: {{referralCount}}', 'Paylaşmaya devam edin:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Aylık özetiniz',
      preheader: 'Bağlantınızın bu ayki durumu.',
      body: ['Merhaba {{firstName}},', 'Satış ortaklığı bağlantınızın durumu şöyle.', 'Şimdiye kadar getirdiğiniz müşteri sayısı: {{referralCount}}', 'Paylaşmaya devam edin:'],
    },
    commissionGenerated: {
      subject: '{{commissionAmount}} komisyon kazandınız',
      preheader: 'Bağlantınız üzerinden bir satış.',
      body: ['Merhaba {{firstName}},', 'Getirdiğiniz bir müşteri az önce alışveriş yaptı ve {{commissionAmount}} komisyon kazandınız.'],
    },
    commissionAdjusted: {
      subject: 'Bir komisyon düzeltildi',
      preheader: 'Bir iade veya ters ibraz bir komisyonu değiştirdi.',
      body: ['Merhaba {{firstName}},', 'Bir iade veya ters ibraz komisyonlarınızdan birini değiştirdi. Komisyon artık {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: '{{payoutAmount}} tutarında bir ödeme yolda',
      preheader: 'Bir sonraki ödemeniz planlandı.',
      body: ['Merhaba {{firstName}},', '{{payoutAmount}} tutarındaki ödemeniz planlandı ve yakında gönderilecek.'],
    },
    payoutSentSuccess: {
      subject: 'Size {{payoutAmount}} gönderdik',
      preheader: 'Ödemeniz gönderildi.',
      body: ['Merhaba {{firstName}},', '{{payoutAmount}} tutarındaki ödemenizi az önce gönderdik. Harika iş ortaklığınız için teşekkürler!'],
    },
    invite: {
      subject: '{{referrerFirstName}} sizi {{companyName}} için davet ediyor',
      preheader: '{{referrerFirstName}} adlı kişiden kişisel bir davet.',
      body: ['Merhaba,', '{{referrerFirstName}}, {{companyName}} markasını seveceğinizi düşünüyor ve size şu mesajı gönderdi:', '{{messageText}}', 'Bu bağlantıyla kaydolun:'],
    },
    loginLink: {
      subject: 'Giriş bağlantınız',
      preheader: 'Tek tıkla giriş yapın.',
      body: ['Merhaba {{firstName}},', 'Giriş yapmak için bu bağlantıyı kullanın. Bağlantı yalnızca bir kez çalışır ve 15 dakika içinde geçerliliğini yitirir:', '<a href="{{loginUrl}}">Giriş yap</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'PayPal e-posta adresinizi onaylayın',
      preheader: 'Ödemelerinizi nereye göndereceğimizi tek tıkla onaylayın.',
      body: ['Merhaba {{firstName}},', 'Lütfen ödemelerinizin {{paypalEmail}} PayPal hesabına gönderilmesi gerektiğini onaylayın:', '<a href="{{confirmationUrl}}">PayPal e-posta adresimi onayla</a>'],
    },
    taxInfoMissing: {
      subject: 'Vergi bilgilerinize ihtiyacımız var',
      preheader: 'Size ödeme yapabilmemiz için gerekli.',
      body: ['Merhaba {{firstName}},', 'Ödemelerinizi gönderebilmemiz için vergi bilgilerinize ihtiyacımız var. Yalnızca birkaç dakika sürer:', '<a href="{{taxInfoUrl}}">Vergi bilgilerimi ekle</a>'],
    },
    taxInfoReceived: {
      subject: 'Vergi bilgilerinizi aldık',
      preheader: 'Bilgilerinizi inceliyoruz.',
      body: ['Merhaba {{firstName}},', 'Teşekkürler, vergi bilgilerinizi aldık ve kısa süre içinde inceleyeceğiz.'],
    },
    taxInfoApproved: {
      subject: 'Vergi bilgileriniz onaylandı',
      preheader: 'Ödemeler için her şey hazır.',
      body: ['Merhaba {{firstName}},', 'Vergi bilgileriniz onaylandı. Ödeme almak için her şey hazır.'],
    },
    taxInfoRejected: {
      subject: 'Vergi bilgilerinizin yeniden gözden geçirilmesi gerekiyor',
      preheader: 'Lütfen vergi bilgilerinizi güncelleyin.',
      body: ['Merhaba {{firstName}},', 'Vergi bilgilerinizi kabul edemedik. Bize bildirilen neden:', '{{reason}}', '<a href="{{taxInfoUrl}}">Vergi bilgilerimi güncelle</a>'],
    },
  },
  builtIn: {
    followUpSubject: { one: 'Davetiniz henüz kabul edilmedi', other: '{count} davetiniz henüz kabul edilmedi' },
    followUpPreheader: 'Küçük bir hatırlatma çoğu zaman işe yarar.',
    followUpGreeting: 'Merhaba {{firstName}},',
    followUpIntro: { one: '{{companyName}} için davet ettiğiniz bir arkadaşınız henüz katılmadı:', other: '{{companyName}} için davet ettiğiniz {count} arkadaşınız henüz katılmadı:' },
    followUpAsk: 'Kişisel bir hatırlatma çoğu zaman işe yarar. Tekrar paylaşmanız için bağlantınız:',
    payoutConfirmSubject: '{{payoutProvider}} ödeme bilgilerinizi onaylayın',
    payoutConfirmPreheader: 'Ödemelerinizi nereye göndereceğimizi tek tıkla onaylayın.',
    payoutConfirmGreeting: 'Merhaba {{firstName}},',
    payoutConfirmBody: 'Lütfen ödemelerinizi göndereceğimiz {{payoutProvider}} hesabını onaylayın. Bağlantı yalnızca bir kez çalışır ve 24 saat içinde geçerliliğini yitirir:',
    payoutConfirmButton: '{{payoutProvider}} bilgilerimi onayla',
    affiliateInviteSubject: '{{companyName}} satış ortaklığı programına davetlisiniz',
    affiliateInvitePreheader: 'Satış ortağı olun, komisyon kazanın.',
    affiliateInviteGreeting: 'Merhaba {{firstName}},',
    affiliateInviteBody: '{{companyName}} satış ortaklığı programına katılmaya davetlisiniz. Satış ortaklığı bağlantınızı almak ve komisyon kazanmaya başlamak için daveti kabul edin:',
    affiliateInviteButton: 'Daveti kabul et',
    affiliateInviteExpires: 'Bağlantı yalnızca bir kez çalışır ve {{expiresOn}} tarihinde geçerliliğini yitirir.',
  },
};
