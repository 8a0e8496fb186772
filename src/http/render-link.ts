import { SIGNATURE_PARAM, signQuery } from '../access/link-signature.js';
import { DEFAULT_BASE_PATH, routeTable } from './routes.js';

/** A parameter value as a link carries it; arrays repeat the name. */
export type LinkParamValue = string | number | boolean | readonly string[];

export interface RenderLinkOptions {
  /** Where the service answers: its origin, plus any path it is mounted under. @example 'https://shots.example.com' */
  baseUrl: string;
  /** The HTTP service's `basePath`. @default '/api' */
  basePath?: string;
  /** The key's public id (`ce_...`, or `key_...` for an operator key): never the API key itself. */
  key: string;
  /** The key's signing secret (`keys create` prints it; `operatorSigningSecret(apiKey)` for an operator key). */
  signingSecret: string;
  /** Capture parameters, as on `/v1/capture`; `url` is required. */
  params: { url: string } & Record<string, LinkParamValue | undefined>;
  /** Seconds the link stays valid from now; without it (and without `expires`), it never expires. */
  expiresIn?: number;
  /** When the link stops working, instead of `expiresIn`. */
  expires?: Date;
}

/**
 * A signed render link: `GET` it (an `<img src>`, an `og:image`) for the capture, without the API key.
 * Reordering its parameters keeps it valid; changing any value breaks it.
 */
export function renderLink(options: RenderLinkOptions): string {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(options.params)) {
    if (value === undefined) continue;
    if (name === SIGNATURE_PARAM || name === 'key' || name === 'expires') throw new TypeError(`renderLink: '${name}' is set by the builder, not in params`);
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, String(one)]);
  }
  pairs.push(['key', options.key]);
  const expires = options.expires ?? (options.expiresIn === undefined ? undefined : new Date(Date.now() + options.expiresIn * 1000));
  if (expires !== undefined) pairs.push(['expires', String(Math.floor(expires.getTime() / 1000))]);
  const search = new URLSearchParams(pairs);
  search.append(SIGNATURE_PARAM, signQuery(pairs, options.signingSecret));
  return `${options.baseUrl.replace(/\/+$/, '')}${routeTable(options.basePath ?? DEFAULT_BASE_PATH).render}?${search.toString()}`;
}
