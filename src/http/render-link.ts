import { signQuery } from '../access/link-signature.js';
import { unsignedRenderLink, type RenderLinkParts } from './render-link-query.js';

export type { LinkParamValue } from './render-link-query.js';

export interface RenderLinkOptions extends RenderLinkParts {
  /** The key's signing secret (`keys create` prints it; `operatorSigningSecret(apiKey)` for an operator key). */
  signingSecret: string;
}

/**
 * A signed render link: `GET` it (an `<img src>`, an `og:image`) for the capture, without the API key.
 * Reordering its parameters keeps it valid; changing any value breaks it.
 */
export function renderLink(options: RenderLinkOptions): string {
  const link = unsignedRenderLink(options);
  return link.withSignature(signQuery(link.pairs, options.signingSecret));
}
