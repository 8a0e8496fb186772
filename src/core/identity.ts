import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The engine's product token: the name robots.txt groups are matched against, and the head of its User-Agent product. */
export const PRODUCT_TOKEN = 'capture-engine';

/** The package's version, from the package.json above this module (src/, dist/src/ or a bundle's chunk), read once. */
export const PACKAGE_VERSION: string = readPackageVersion();

/** `capture-engine/<version>`: how the engine names itself in every User-Agent it sends. */
export const PRODUCT = `${PRODUCT_TOKEN}/${PACKAGE_VERSION}`;

function readPackageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** How the operator shapes the User-Agent of the browser's requests (`userAgent`, `operatorUrl`). */
export interface UserAgentOptions {
  /** Sent instead of the engine's own; a capture's `user_agent` still wins. */
  userAgent?: string;
  /** Where a site learns who runs the service and how to reach them, appended as `(+url)`. */
  operatorUrl?: string;
}

/**
 * The User-Agent the browser sends when a capture names none, from Chromium's own (`chromium`):
 * Chromium's, then `capture-engine/<version>`, then `(+operatorUrl)` when one is given, the way
 * crawlers have long named themselves (Googlebot's `(+http://www.google.com/bot.html)`). Chromium's
 * part stays as it is, `HeadlessChrome` included: sites keep serving what they serve Chromium, and
 * nothing in it pretends to be a person's browser.
 */
export function engineUserAgent(chromium: string, options: UserAgentOptions): string {
  if (options.userAgent !== undefined) return options.userAgent;
  return `${chromium} ${PRODUCT}${options.operatorUrl === undefined ? '' : ` (+${options.operatorUrl})`}`;
}

/** Refuses a `userAgent` or `operatorUrl` that could not go in a header as it is, naming the option. */
export function checkUserAgentOptions(options: UserAgentOptions): UserAgentOptions {
  const { userAgent, operatorUrl } = options;
  const printable = /^[\x20-\x7e]{1,512}$/;
  if (userAgent !== undefined && !printable.test(userAgent)) throw new TypeError("Option 'userAgent' must be 1 to 512 printable ASCII characters");
  if (operatorUrl !== undefined && !(printable.test(operatorUrl) && /^https?:\/\/[^\s()]+$/.test(operatorUrl) && URL.canParse(operatorUrl))) {
    throw new TypeError("Option 'operatorUrl' must be an http or https URL without spaces or parentheses");
  }
  return { userAgent, operatorUrl };
}
