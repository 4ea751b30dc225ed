// English messages only the share panel shows (the link, copy, share-via and channel names): part of
// the one catalogue, registered by the share panel's chunk (panels/share.tsx), so a visitor's first
// load does not carry them (issue #24).
import { extend } from './index.ts';

/** The share panel's own English messages. */
export const enShare = {
  'share.linkLabel': 'Your referral link',
  'share.copy': 'Copy link',
  'share.message': 'Join me: {url}',
  'share.via': 'Share via {channel}',
  'channel.email': 'Email',
  'channel.sms': 'SMS',
  'channel.facebook': 'Facebook',
  'channel.twitter': 'X',
  'channel.linkedin': 'LinkedIn',
  'channel.pinterest': 'Pinterest',
  'channel.threads': 'Threads',
  'channel.bluesky': 'Bluesky',
  'channel.messenger': 'Messenger',
  'channel.whatsapp': 'WhatsApp',
  'channel.wechat': 'WeChat',
  'channel.telegram': 'Telegram',
  'channel.reddit': 'Reddit',
  'channel.tumblr': 'Tumblr',
  'channel.qrcode': 'QR code',
} as const;

extend('en', enShare);
