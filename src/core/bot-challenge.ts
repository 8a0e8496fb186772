import { stateKey } from './capture-state.js';

/** The bot managers and CAPTCHA widgets a capture recognises (`vendor` of a `bot_challenge` refusal). */
export const BOT_VENDORS = ['cloudflare', 'akamai', 'datadome', 'perimeterx', 'imperva', 'aws-waf', 'kasada', 'hcaptcha', 'turnstile', 'recaptcha'] as const;
export type BotVendor = (typeof BOT_VENDORS)[number];

/** A challenge or block page the capture met: whose, and the markers that matched (for diagnostics). */
export interface BotChallenge {
  vendor: BotVendor;
  matched: string[];
  /** Refused (the default) or taken anyway (`on_bot_challenge=capture`). */
  outcome: 'rejected' | 'captured';
}

/** Set by the stage that recognised a challenge; read by the diagnostics and the metrics. */
export const BOT_CHALLENGE = stateKey<BotChallenge>('core:bot-challenge');
