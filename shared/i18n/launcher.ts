// The corner launcher's words in every program language but English (issue #27). The launcher is
// drawn before the window and its language chunks load, from the window payload alone, so the
// server sends these few words with it (MW1 `launcherTexts`) in the reader's language, chosen by the
// one rule (shared/program-language.ts); an English reader gets none, the drawing carries English
// (./en-launcher.ts). Shared because the server sends what the widget shows.
import type { enLauncher } from './en-launcher.ts';

/** The launcher's words: what a blank design text falls back to (visitor, participant, button) and the hide button's name. */
export type LauncherWords = { readonly [K in keyof typeof enLauncher]: string } & { readonly lang?: string };

/** Every program language's launcher words except English's. */
export const LAUNCHER_WORDS: Readonly<Record<string, LauncherWords>> = {
  es: { visitor: 'Recomienda a un amigo', participant: 'Tu enlace de referido', button: 'Recomienda y gana', hide: 'Ocultar' },
  fr: { visitor: 'Parrainer un ami', participant: 'Votre lien de parrainage', button: 'Parrainez et gagnez', hide: 'Masquer' },
  de: { visitor: 'Freunde werben', participant: 'Dein Empfehlungslink', button: 'Empfehlen & profitieren', hide: 'Ausblenden' },
  it: { visitor: 'Invita un amico', participant: 'Il tuo link di invito', button: 'Invita e guadagna', hide: 'Nascondi' },
  'pt-BR': { visitor: 'Indique um amigo', participant: 'Seu link de indicação', button: 'Indique e ganhe', hide: 'Ocultar' },
  nl: { visitor: 'Verwijs een vriend', participant: 'Jouw verwijslink', button: 'Verwijs en verdien', hide: 'Verbergen' },
  pl: { visitor: 'Poleć znajomemu', participant: 'Twój link polecający', button: 'Polecaj i zarabiaj', hide: 'Ukryj' },
  sv: { visitor: 'Tipsa en vän', participant: 'Din värvningslänk', button: 'Tipsa och tjäna', hide: 'Dölj' },
  // Polite "siz", "您", "Anda", like the hosted pages and emails.
  tr: { visitor: 'Bir arkadaşınızı davet edin', participant: 'Tavsiye bağlantınız', button: 'Davet edin, kazanın', hide: 'Gizle' },
  ja: { visitor: 'お友達を紹介', participant: 'あなたの紹介リンク', button: '紹介して特典ゲット', hide: '非表示' },
  ko: { visitor: '친구 추천하기', participant: '내 추천 링크', button: '추천하고 리워드 받기', hide: '숨기기' },
  'zh-CN': { visitor: '推荐好友', participant: '您的推荐链接', button: '推荐赢奖励', hide: '隐藏' },
  id: { visitor: 'Ajak teman', participant: 'Tautan referensi Anda', button: 'Ajak & dapat hadiah', hide: 'Sembunyikan' },
};

/** The launcher's words in `language`, or undefined for English (the drawing's own) and a code without words. */
export const launcherWords = (language: string): LauncherWords | undefined => (Object.hasOwn(LAUNCHER_WORDS, language) ? LAUNCHER_WORDS[language] : undefined);
