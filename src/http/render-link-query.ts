import { managedKeyIdOf, SIGNATURE_PARAM } from '../access/link-canonical.js';
import { DEFAULT_BASE_PATH, routeTable } from './routes.js';

/** A parameter value as a link carries it; arrays repeat the name. */
export type LinkParamValue = string | number | boolean | readonly string[];

/** A render link but its signature: where, whose, what, until when. */
export interface RenderLinkParts {
  /** Where the service answers: its origin, plus any path it is mounted under. @example 'https://shots.example.com' */
  baseUrl: string;
  /** The HTTP service's `basePath`. @default '/api' */
  basePath?: string;
  /** The key's public id (`ce_...`, or `key_...` for an operator key): never the API key itself. */
  key: string;
  /** Capture parameters, as on `/v1/capture`; `url` is required. */
  params: { url: string } & Record<string, LinkParamValue | undefined>;
  /** Seconds the link stays valid from now; without it (and without `expires`), it never expires. */
  expiresIn?: number;
  /** When the link stops working, instead of `expiresIn`. */
  expires?: Date;
}

/**
 * The pairs a render link's signature covers (its parameters, `key` and `expires`), and the link
 * once signed. Pure, so that the server's HMAC (node:crypto) and the client's (Web Crypto) share it.
 */
export function unsignedRenderLink(parts: RenderLinkParts): { pairs: [string, string][]; withSignature(signature: string): string } {
  const id = managedKeyIdOf(parts.key);
  // A link is public: with the whole key in it, whoever sees it holds the key.
  if (id !== undefined) throw new TypeError(`renderLink: key is a whole API key, secret included; a link names the key by its prefix: key: '${id}'`);
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(parts.params)) {
    if (value === undefined) continue;
    if (name === SIGNATURE_PARAM || name === 'key' || name === 'expires') throw new TypeError(`renderLink: '${name}' is set by the builder, not in params`);
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, String(one)]);
  }
  pairs.push(['key', parts.key]);
  const expires = parts.expires ?? (parts.expiresIn === undefined ? undefined : new Date(Date.now() + parts.expiresIn * 1000));
  if (expires !== undefined) pairs.push(['expires', String(Math.floor(expires.getTime() / 1000))]);
  const base = `${parts.baseUrl.replace(/\/+$/, '')}${routeTable(parts.basePath ?? DEFAULT_BASE_PATH).render}`;
  return {
    pairs,
    withSignature(signature) {
      const search = new URLSearchParams(pairs);
      search.append(SIGNATURE_PARAM, signature);
      return `${base}?${search.toString()}`;
    },
  };
}
