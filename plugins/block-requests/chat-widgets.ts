/**
 * The support-chat widgets `block_chats` refuses: the hosts their loaders and frames come from,
 * and the elements they put on a page, for pages that embed the container themselves. Taken from
 * each vendor's install snippet.
 */
const CHAT_HOSTS = [
  // Intercom
  'widget.intercom.io',
  'js.intercomcdn.com',
  '*.intercom.io',
  '*.intercomcdn.com',
  // Drift
  'js.driftt.com',
  '*.driftt.com',
  '*.drift.com',
  // Crisp
  'client.crisp.chat',
  '*.crisp.chat',
  // Zendesk (Web Widget, Messaging, Zopim)
  'static.zdassets.com',
  '*.zdassets.com',
  '*.zopim.com',
  // HubSpot conversations
  'js.usemessages.com',
  '*.usemessages.com',
  // Tawk.to
  'embed.tawk.to',
  '*.tawk.to',
  // LiveChat
  'cdn.livechatinc.com',
  '*.livechatinc.com',
  // Tidio
  'code.tidio.co',
  '*.tidio.co',
  // Freshchat
  'wchat.freshchat.com',
  '*.freshchat.com',
  // Olark
  'static.olark.com',
  '*.olark.com',
  // Zoho SalesIQ
  'salesiq.zoho.com',
  'salesiq.zohopublic.com',
  // Help Scout Beacon
  'beacon-v2.helpscout.net',
  // Gorgias
  'config.gorgias.chat',
  '*.gorgias.chat',
  // JivoChat
  'code.jivosite.com',
  '*.jivosite.com',
  // Smartsupp
  '*.smartsuppchat.com',
  '*.smartsupp.com',
];

/** Whole-URL expressions of the hosts, any scheme and port. */
export const CHAT_URL_PATTERNS: readonly RegExp[] = CHAT_HOSTS.map(
  (host) => new RegExp(`^[a-z]+://${host.startsWith('*.') ? `([^/:?#]+\\.)?${escape(host.slice(2))}` : escape(host)}(:\\d+)?([/?#]|$)`, 'i'),
);

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** The widgets' own containers and launchers, hidden in case one came by another way. */
export const CHAT_SELECTORS = [
  '#intercom-container',
  '#intercom-frame',
  '.intercom-lightweight-app',
  '.intercom-launcher',
  '#drift-widget',
  '#drift-widget-container',
  '#drift-frame-controller',
  '#drift-frame-chat',
  '.crisp-client',
  '#crisp-chatbox',
  'iframe#launcher',
  'iframe#webWidget',
  '[data-product="web_widget"]',
  '#hubspot-messages-iframe-container',
  'iframe[src*="tawk.to"]',
  '#chat-widget-container',
  '#livechat-compact-container',
  '#tidio-chat',
  '#tidio-chat-iframe',
  '#fc_frame',
  '#freshworks-container',
  '#olark-wrapper',
  '#olark-container',
  '.zsiq_floatmain',
  '#zsiq_float',
  '#beacon-container',
  '.BeaconFabButtonFrame',
  '#gorgias-chat-container',
  'jdiv',
  '#chat-application',
  '#smartsupp-widget-container',
];
