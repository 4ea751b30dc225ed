// The default program emails in Indonesian (issue #27): polite "Anda", as Indonesian product copy is.
import type { EmailCopy } from './types.ts';

export const idEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Tautan referensi {{companyName}} Anda',
      preheader: 'Bagikan ke teman dan dapatkan hadiah.',
      body: ['Hai {{firstName}},', 'Terima kasih sudah bergabung! Ini tautan referensi pribadi Anda. Bagikan ke teman-teman, dan Anda akan mendapatkan hadiah saat mereka mendaftar:'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Selamat datang di program afiliasi {{companyName}}',
      preheader: 'Tautan afiliasi Anda sudah siap.',
      body: ['Hai {{firstName}},', 'Selamat bergabung! Ini tautan afiliasi Anda. Bagikan di mana pun Anda merekomendasikan kami, dan dapatkan komisi dari setiap penjualan yang dihasilkannya:'],
    },
    welcomeReferred: {
      subject: 'Selamat datang! {{referrerFirstName}} merekomendasikan Anda',
      preheader: 'Tautan referensi Anda juga sudah siap.',
      body: ['Hai {{firstName}},', 'Terima kasih sudah bergabung! {{referrerFirstName}} merekomendasikan Anda, dan Anda juga bisa mendapatkan hadiah dengan membagikan tautan Anda sendiri ke teman:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Seseorang baru saja membuka tautan Anda',
      preheader: 'Tautan Anda mendapat kunjungan pertama.',
      body: ['Hai {{firstName}},', 'Kabar baik: seseorang baru saja membuka tautan Anda untuk pertama kalinya. Terus bagikan:'],
    },
    referralLinkUsed: {
      subject: 'Referensi Anda dihitung',
      preheader: 'Salah satu referensi Anda sudah selesai.',
      body: ['Hai {{firstName}},', 'Kabar baik: {{referredFirstName}} bergabung lewat tautan Anda, dan referensi ini sekarang dihitung untuk Anda.', 'Jumlah teman yang direferensikan sejauh ini: {{referralCount}}', 'Terus bagikan tautan Anda:'],
    },
    referredSignup: {
      subject: '{{referredFirstName}} mendaftar lewat tautan Anda',
      preheader: 'Anda berhasil mereferensikan teman.',
      body: ['Hai {{firstName}},', '{{referredFirstName}} baru saja mendaftar lewat tautan referensi Anda. Terima kasih sudah menyebarkan kabar!'],
    },
    referredSignupAffiliate: {
      subject: 'Pelanggan baru mendaftar lewat tautan Anda',
      preheader: 'Anda membawa seseorang yang baru.',
      body: ['Hai {{firstName}},', '{{referredFirstName}} mendaftar lewat tautan afiliasi Anda. Anda akan mendapatkan komisi saat mereka berbelanja.'],
    },
    goalAchieved: {
      subject: 'Anda mendapatkan hadiah!',
      preheader: 'Selamat, hadiah ini milik Anda.',
      body: ['Hai {{firstName}},', 'Selamat, Anda mendapatkan hadiah:', '<strong>{{rewardDescription}}</strong>', 'Terima kasih sudah mengenalkan {{companyName}} kepada orang lain!'],
    },
    campaignEndedWinners: {
      subject: 'Program telah berakhir: Anda menang!',
      preheader: 'Terima kasih sudah berpartisipasi.',
      body: ['Hai {{firstName}},', 'Program referensi kami telah berakhir, dan Anda salah satu pemenangnya. Kami akan menghubungi Anda mengenai hadiah Anda.'],
    },
    campaignEndedNonWinners: {
      subject: 'Program telah berakhir',
      preheader: 'Terima kasih sudah berpartisipasi.',
      body: ['Hai {{firstName}},', 'Program referensi kami telah berakhir. Terima kasih sudah berpartisipasi dan menyebarkan kabar!'],
    },
    progressUpdateMonthly: {
      subject: 'Ringkasan bulanan Anda',
      preheader: 'Hasil tautan Anda bulan ini.',
      body: ['Hai {{firstName}},', 'Berikut perkembangan tautan referensi Anda.', 'Jumlah teman yang direferensikan sejauh ini: {{referralCount}}', 'Terus bagikan:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Ringkasan bulanan Anda',
      preheader: 'Hasil tautan Anda bulan ini.',
      body: ['Hai {{firstName}},', 'Berikut perkembangan tautan afiliasi Anda.', 'Jumlah pelanggan yang direferensikan sejauh ini: {{referralCount}}', 'Terus bagikan:'],
    },
    commissionGenerated: {
      subject: 'Anda mendapatkan komisi {{commissionAmount}}',
      preheader: 'Ada penjualan lewat tautan Anda.',
      body: ['Hai {{firstName}},', 'Pelanggan yang Anda referensikan baru saja berbelanja, dan Anda mendapatkan komisi sebesar {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'Komisi telah disesuaikan',
      preheader: 'Pengembalian dana atau chargeback mengubah komisi.',
      body: ['Hai {{firstName}},', 'Pengembalian dana atau chargeback mengubah salah satu komisi Anda. Jumlahnya sekarang {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Pembayaran {{payoutAmount}} sedang dalam proses',
      preheader: 'Pembayaran berikutnya sudah dijadwalkan.',
      body: ['Hai {{firstName}},', 'Pembayaran Anda sebesar {{payoutAmount}} sudah dijadwalkan dan akan segera dikirim.'],
    },
    payoutSentSuccess: {
      subject: 'Kami telah mengirim {{payoutAmount}} kepada Anda',
      preheader: 'Pembayaran Anda sudah dikirim.',
      body: ['Hai {{firstName}},', 'Kami baru saja mengirim pembayaran Anda sebesar {{payoutAmount}}. Terima kasih atas kemitraan yang luar biasa!'],
    },
    invite: {
      subject: '{{referrerFirstName}} mengundang Anda ke {{companyName}}',
      preheader: 'Undangan pribadi dari {{referrerFirstName}}.',
      body: ['Hai,', '{{referrerFirstName}} rasa Anda akan menyukai {{companyName}} dan mengirimkan pesan ini:', '{{messageText}}', 'Daftar lewat tautan berikut:'],
    },
    loginLink: {
      subject: 'Tautan masuk Anda',
      preheader: 'Masuk dengan satu klik.',
      body: ['Hai {{firstName}},', 'Gunakan tautan ini untuk masuk. Tautan hanya berlaku sekali dan kedaluwarsa dalam 15 menit:', '<a href="{{loginUrl}}">Masuk</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Konfirmasi email PayPal Anda',
      preheader: 'Satu klik untuk mengonfirmasi tujuan pembayaran Anda.',
      body: ['Hai {{firstName}},', 'Konfirmasikan bahwa pembayaran Anda dikirim ke akun PayPal {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Konfirmasi email PayPal saya</a>'],
    },
    taxInfoMissing: {
      subject: 'Kami memerlukan informasi pajak Anda',
      preheader: 'Diperlukan sebelum kami dapat membayar Anda.',
      body: ['Hai {{firstName}},', 'Sebelum dapat mengirim pembayaran, kami memerlukan informasi pajak Anda. Hanya butuh beberapa menit:', '<a href="{{taxInfoUrl}}">Isi informasi pajak saya</a>'],
    },
    taxInfoReceived: {
      subject: 'Informasi pajak Anda sudah kami terima',
      preheader: 'Kami sedang meninjaunya.',
      body: ['Hai {{firstName}},', 'Terima kasih, informasi pajak Anda sudah kami terima dan akan segera kami tinjau.'],
    },
    taxInfoApproved: {
      subject: 'Informasi pajak Anda disetujui',
      preheader: 'Semua siap untuk pembayaran.',
      body: ['Hai {{firstName}},', 'Informasi pajak Anda telah disetujui. Semua sudah siap untuk menerima pembayaran.'],
    },
    taxInfoRejected: {
      subject: 'Informasi pajak Anda perlu diperiksa lagi',
      preheader: 'Perbarui informasi pajak Anda.',
      body: ['Hai {{firstName}},', 'Kami tidak dapat menerima informasi pajak Anda. Alasan yang kami terima:', '{{reason}}', '<a href="{{taxInfoUrl}}">Perbarui informasi pajak saya</a>'],
    },
  },
  builtIn: {
    followUpSubject: { other: '{count} undangan Anda belum diterima' },
    followUpPreheader: 'Pengingat kecil sering kali membantu.',
    followUpGreeting: 'Hai {{firstName}},',
    followUpIntro: { other: 'Ada {count} teman yang Anda undang ke {{companyName}} tetapi belum bergabung:' },
    followUpAsk: 'Pengingat pribadi sering kali membantu. Ini tautan Anda untuk dibagikan lagi:',
    payoutConfirmSubject: 'Konfirmasi detail pembayaran {{payoutProvider}} Anda',
    payoutConfirmPreheader: 'Satu klik untuk mengonfirmasi tujuan pembayaran Anda.',
    payoutConfirmGreeting: 'Hai {{firstName}},',
    payoutConfirmBody: 'Konfirmasikan akun {{payoutProvider}} tujuan pembayaran Anda. Tautan hanya berlaku sekali dan kedaluwarsa dalam 24 jam:',
    payoutConfirmButton: 'Konfirmasi detail {{payoutProvider}} saya',
    affiliateInviteSubject: 'Anda diundang ke program afiliasi {{companyName}}',
    affiliateInvitePreheader: 'Jadilah afiliasi dan dapatkan komisi.',
    affiliateInviteGreeting: 'Halo {{firstName}},',
    affiliateInviteBody: 'Anda diundang untuk bergabung dengan program afiliasi {{companyName}}. Terima undangan untuk mendapatkan tautan afiliasi dan mulai menghasilkan komisi:',
    affiliateInviteButton: 'Terima undangan',
    affiliateInviteExpires: 'Tautan hanya berlaku sekali dan kedaluwarsa pada {{expiresOn}}.',
  },
};
