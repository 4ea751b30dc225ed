// The default program emails in Polish (issue #27): informal "ty" (capitalised in letters: Twój,
// Ci), wording that needs no gendered past tense, and all four plural forms where a count shows.
import type { EmailCopy } from './types.ts';

export const plEmails: EmailCopy = {
  templates: {
    welcomeNonReferred: {
      subject: 'Twój link polecający {{companyName}}',
      preheader: 'Udostępnij go znajomym i zdobywaj nagrody.',
      body: ['Cześć {{firstName}},', 'dzięki, że jesteś z nami! Oto Twój osobisty link polecający. Udostępnij go znajomym – gdy się zarejestrują, dostaniesz nagrody:'],
    },
    welcomeNonReferredAffiliate: {
      subject: 'Witamy w programie partnerskim {{companyName}}',
      preheader: 'Twój link partnerski jest gotowy.',
      body: ['Cześć {{firstName}},', 'witamy na pokładzie! Oto Twój link partnerski. Udostępniaj go wszędzie, gdzie nas polecasz – od każdej sprzedaży z tego linku dostaniesz prowizję:'],
    },
    welcomeReferred: {
      subject: 'Witamy! Polecenie od: {{referrerFirstName}}',
      preheader: 'Twój własny link polecający też już czeka.',
      body: ['Cześć {{firstName}},', 'dzięki, że jesteś z nami! Trafiasz do nas z polecenia: {{referrerFirstName}}. Ty też możesz zdobywać nagrody, udostępniając znajomym własny link:'],
    },
    referralLinkViewedFirstTime: {
      subject: 'Ktoś właśnie otworzył Twój link',
      preheader: 'Twój link ma pierwszą wizytę.',
      body: ['Cześć {{firstName}},', 'dobra wiadomość: ktoś właśnie po raz pierwszy otworzył Twój link. Udostępniaj go dalej:'],
    },
    referralLinkUsed: {
      subject: 'Twoje polecenie się liczy',
      preheader: 'Jedno z Twoich poleceń zostało zaliczone.',
      body: ['Cześć {{firstName}},', 'dobra wiadomość: {{referredFirstName}} dołącza dzięki Twojemu linkowi i polecenie zostało Ci zaliczone.', 'Liczba poleconych osób: {{referralCount}}', 'Udostępniaj swój link dalej:'],
    },
    referredSignup: {
      subject: 'Nowa rejestracja z Twojego linku: {{referredFirstName}}',
      preheader: 'Ktoś dołączył z Twojego polecenia.',
      body: ['Cześć {{firstName}},', 'nowa osoba zarejestrowana z Twojego linku polecającego: {{referredFirstName}}. Dzięki, że nas polecasz!'],
    },
    referredSignupAffiliate: {
      subject: 'Nowy klient zarejestrowany z Twojego linku',
      preheader: 'Masz nowego poleconego klienta.',
      body: ['Cześć {{firstName}},', 'nowa rejestracja z Twojego linku partnerskiego: {{referredFirstName}}. Prowizję dostaniesz, gdy ta osoba coś kupi.'],
    },
    goalAchieved: {
      subject: 'Masz nową nagrodę!',
      preheader: 'Gratulacje, nagroda jest Twoja.',
      body: ['Cześć {{firstName}},', 'gratulacje, nagroda jest Twoja:', '<strong>{{rewardDescription}}</strong>', 'Dzięki, że polecasz {{companyName}}!'],
    },
    campaignEndedWinners: {
      subject: 'Program dobiegł końca – wygrana jest Twoja!',
      preheader: 'Dziękujemy za udział.',
      body: ['Cześć {{firstName}},', 'nasz program poleceń dobiegł końca, a Ty jesteś w gronie zwycięzców. Wkrótce odezwiemy się w sprawie nagrody.'],
    },
    campaignEndedNonWinners: {
      subject: 'Program dobiegł końca',
      preheader: 'Dziękujemy za udział.',
      body: ['Cześć {{firstName}},', 'nasz program poleceń dobiegł końca. Dziękujemy za udział i za polecanie nas innym!'],
    },
    progressUpdateMonthly: {
      subject: 'Twoje podsumowanie miesiąca',
      preheader: 'Jak radził sobie Twój link w tym miesiącu.',
      body: ['Cześć {{firstName}},', 'oto jak radzi sobie Twój link polecający.', 'Liczba poleconych osób: {{referralCount}}', 'Udostępniaj go dalej:'],
    },
    progressUpdateMonthlyAffiliate: {
      subject: 'Twoje podsumowanie miesiąca',
      preheader: 'Jak radził sobie Twój link w tym miesiącu.',
      body: ['Cześć {{firstName}},', 'oto jak radzi sobie Twój link partnerski.', 'Liczba poleconych klientów: {{referralCount}}', 'Udostępniaj go dalej:'],
    },
    commissionGenerated: {
      subject: 'Nowa prowizja: {{commissionAmount}}',
      preheader: 'Sprzedaż z Twojego linku.',
      body: ['Cześć {{firstName}},', 'polecony przez Ciebie klient właśnie zrobił zakupy. Twoja prowizja to {{commissionAmount}}.'],
    },
    commissionAdjusted: {
      subject: 'Prowizja została skorygowana',
      preheader: 'Zwrot lub obciążenie zwrotne zmieniło prowizję.',
      body: ['Cześć {{firstName}},', 'zwrot lub obciążenie zwrotne zmieniło jedną z Twoich prowizji. Wynosi ona teraz {{commissionAmount}}.'],
    },
    payoutPending: {
      subject: 'Wypłata {{payoutAmount}} jest w drodze',
      preheader: 'Twoja następna wypłata jest zaplanowana.',
      body: ['Cześć {{firstName}},', 'Twoja wypłata w kwocie {{payoutAmount}} jest zaplanowana i wkrótce zostanie wysłana.'],
    },
    payoutSentSuccess: {
      subject: 'Wysłaliśmy Ci {{payoutAmount}}',
      preheader: 'Twoja wypłata została wysłana.',
      body: ['Cześć {{firstName}},', 'właśnie wysłaliśmy Twoją wypłatę w kwocie {{payoutAmount}}. Dziękujemy za świetną współpracę!'],
    },
    invite: {
      subject: 'Zaproszenie do {{companyName}} od: {{referrerFirstName}}',
      preheader: 'Osobiste zaproszenie od: {{referrerFirstName}}.',
      body: ['Cześć,', '{{referrerFirstName}} uważa, że {{companyName}} przypadnie Ci do gustu, i przesyła tę wiadomość:', '{{messageText}}', 'Zarejestruj się przez ten link:'],
    },
    loginLink: {
      subject: 'Twój link do logowania',
      preheader: 'Zaloguj się jednym kliknięciem.',
      body: ['Cześć {{firstName}},', 'użyj tego linku, aby się zalogować. Działa jeden raz i wygasa po 15 minutach:', '<a href="{{loginUrl}}">Zaloguj się</a>'],
    },
    paypalEmailConfirmation: {
      subject: 'Potwierdź swój adres e-mail w PayPal',
      preheader: 'Jedno kliknięcie, by potwierdzić, dokąd wysyłamy wypłaty.',
      body: ['Cześć {{firstName}},', 'potwierdź, że wypłaty mają trafiać na konto PayPal {{paypalEmail}}:', '<a href="{{confirmationUrl}}">Potwierdzam adres PayPal</a>'],
    },
    taxInfoMissing: {
      subject: 'Potrzebujemy Twoich informacji podatkowych',
      preheader: 'Są wymagane przed wypłatą.',
      body: ['Cześć {{firstName}},', 'zanim wyślemy Ci wypłaty, potrzebujemy Twoich informacji podatkowych. To zajmie tylko kilka minut:', '<a href="{{taxInfoUrl}}">Uzupełnij informacje podatkowe</a>'],
    },
    taxInfoReceived: {
      subject: 'Otrzymaliśmy Twoje informacje podatkowe',
      preheader: 'Właśnie je sprawdzamy.',
      body: ['Cześć {{firstName}},', 'dziękujemy, otrzymaliśmy Twoje informacje podatkowe i wkrótce je sprawdzimy.'],
    },
    taxInfoApproved: {
      subject: 'Twoje informacje podatkowe są zatwierdzone',
      preheader: 'Wszystko gotowe do wypłat.',
      body: ['Cześć {{firstName}},', 'Twoje informacje podatkowe zostały zatwierdzone. Wszystko jest gotowe do wypłat.'],
    },
    taxInfoRejected: {
      subject: 'Twoje informacje podatkowe wymagają poprawek',
      preheader: 'Zaktualizuj swoje informacje podatkowe.',
      body: ['Cześć {{firstName}},', 'nie mogliśmy przyjąć Twoich informacji podatkowych. Podany powód:', '{{reason}}', '<a href="{{taxInfoUrl}}">Zaktualizuj informacje podatkowe</a>'],
    },
  },
  builtIn: {
    followUpSubject: {
      one: 'Twoje zaproszenie wciąż czeka na przyjęcie',
      few: '{count} Twoje zaproszenia wciąż czekają na przyjęcie',
      many: '{count} Twoich zaproszeń wciąż czeka na przyjęcie',
      other: '{count} Twojego zaproszenia wciąż czeka na przyjęcie',
    },
    followUpPreheader: 'Drobne przypomnienie często pomaga.',
    followUpGreeting: 'Cześć {{firstName}},',
    followUpIntro: {
      one: 'jedna osoba zaproszona przez Ciebie do {{companyName}} jeszcze nie dołączyła:',
      few: '{count} osoby zaproszone przez Ciebie do {{companyName}} jeszcze nie dołączyły:',
      many: '{count} osób zaproszonych przez Ciebie do {{companyName}} jeszcze nie dołączyło:',
      other: '{count} osoby zaproszonej przez Ciebie do {{companyName}} jeszcze nie dołączyło:',
    },
    followUpAsk: 'Osobiste przypomnienie często pomaga. Oto Twój link do ponownego udostępnienia:',
    payoutConfirmSubject: 'Potwierdź dane do wypłat w {{payoutProvider}}',
    payoutConfirmPreheader: 'Jedno kliknięcie, by potwierdzić, dokąd wysyłamy wypłaty.',
    payoutConfirmGreeting: 'Cześć {{firstName}},',
    payoutConfirmBody: 'potwierdź konto {{payoutProvider}}, na które mamy wysyłać Twoje wypłaty. Link działa jeden raz i wygasa po 24 godzinach:',
    payoutConfirmButton: 'Potwierdzam dane {{payoutProvider}}',
    affiliateInviteSubject: 'Zaproszenie do programu partnerskiego {{companyName}}',
    affiliateInvitePreheader: 'Zostań partnerem i zarabiaj prowizje.',
    affiliateInviteGreeting: 'Dzień dobry {{firstName}},',
    affiliateInviteBody: 'zapraszamy do programu partnerskiego {{companyName}}. Przyjmij zaproszenie, aby dostać swój link partnerski i zacząć zarabiać prowizje:',
    affiliateInviteButton: 'Przyjmij zaproszenie',
    affiliateInviteExpires: 'Link działa jeden raz i wygasa {{expiresOn}}.',
  },
};
