import type { CaptureError } from '../core/errors/catalogue.js';
import { captureErrors } from '../core/errors/factories.js';
import { isLocalhostName } from './host-name.js';
import { allowHint } from './allow-hint.js';

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/**
 * The WHATWG parser silently strips leading/trailing C0 controls and spaces and drops tabs and
 * newlines anywhere, so " http://a" and "ht\ttp://a" would pass as something the caller did not
 * write. Such input is refused instead of trimmed; Unicode separators and C1 controls too.
 */
const FORBIDDEN_CHARACTERS = /[\p{Cc}\p{Z}\u200b\u2060\ufeff]/u;

function invalid(param: string, message: string): CaptureError {
  return captureErrors.invalidParameter(param, message, 'http or https URL');
}

/**
 * Parses the caller's target the way the browser will (WHATWG), so every odd IP spelling
 * ("2130706433", "0x7f.1", "127.1") reaches the address check already normalised. Only the shape
 * is judged here; where the host points is decided per connection by the egress proxy.
 *
 * `allowPrivateNetworks` lets operators capture their own hosts, `localhost` included. `param` names
 * the parameter the URL came in (`url`, `webhook_url`) in the refusal.
 */
export function parseTargetUrl(raw: string, options: { allowPrivateNetworks?: boolean; param?: string } = {}): URL {
  const param = options.param ?? 'url';
  if (typeof raw !== 'string' || raw.length === 0) throw invalid(param, `${param} is required`);
  if (FORBIDDEN_CHARACTERS.test(raw)) throw invalid(param, `${param} must not contain whitespace or control characters`);
  let url: URL;
  try {
    // URL.parse would avoid the throw, but it arrived in Node 20.18 and the engine supports 20.9.
    url = new URL(raw);
  } catch {
    throw invalid(param, `${param} is not a valid URL: ${JSON.stringify(raw.slice(0, 200))}${schemeSuggestion(raw)}`);
  }
  if (url.username !== '' || url.password !== '') {
    // The refusal echoes the URL back and may be logged: never with the secret in it.
    url.username = '';
    url.password = '';
    throw captureErrors.urlNotAllowed(url.href, 'URLs with credentials are not allowed');
  }
  if (!ALLOWED_SCHEMES.has(url.protocol)) {
    throw captureErrors.urlNotAllowed(raw, `Scheme ${JSON.stringify(url.protocol.slice(0, -1))} is not allowed, only http and https`);
  }
  if (!options.allowPrivateNetworks && isLocalhostName(url.hostname)) {
    throw captureErrors.urlNotAllowed(raw, 'Target host is not allowed', allowHint(url));
  }
  return url;
}

/** What a URL given without its scheme (`example.com/page`) most likely meant. */
function schemeSuggestion(raw: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || !URL.canParse(`https://${raw}`)) return '';
  return ` (an http or https URL: did you mean ${JSON.stringify(`https://${raw.slice(0, 200)}`)}?)`;
}
