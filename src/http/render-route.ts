import type { CaptureEngine, CaptureOptions } from '../core/engine.js';
import type { CaptureParams } from '../core/schema/capture-params.js';
import { captureErrors } from '../core/errors/factories.js';
import { answerCapture } from './capture-route.js';
import type { HttpRequest } from './http-types.js';
import type { ResolvedHttpOptions } from './http-options.js';
import type { RouteAnswer } from './http-observer.js';
import { fromSearchParams } from './request-body.js';
import { identifyByLink, LINK_PARAMS } from './signed-link.js';
import { SIGNATURE_PARAM } from '../access/link-signature.js';

/**
 * `GET|HEAD {base}/v1/render`: a signed render link, answered with the file like
 * `response_type=image` and cached unless it says `cache=false`. HEAD captures ahead of the first
 * GET (warms the cache) and answers the headers only.
 */
export async function handleRender(engine: CaptureEngine, options: ResolvedHttpOptions, request: HttpRequest, search: URLSearchParams, captureOptions: CaptureOptions): Promise<RouteAnswer> {
  const caller = await identifyByLink(options.keyStore, request, search);
  const params = fromSearchParams(search);
  for (const name of LINK_PARAMS) delete params[name];
  params.cache ??= 'true';
  const headOnly = request.method.toUpperCase() === 'HEAD';
  // A link is its key and its signature; a refused one counts for its address alone.
  const link = { id: caller.kind === 'account' ? `${caller.record.id}:${search.get(SIGNATURE_PARAM)}` : undefined };
  return answerCapture(engine, options, { route: 'render', request, caller, params, check: renderable, headOnly, link }, captureOptions);
}

/** A link sits where a file is expected: it answers with the file, now. */
function renderable(params: CaptureParams): void {
  if (params.response_type !== 'image') throw captureErrors.invalidParameter('response_type', 'A render link answers with the file itself', 'image');
  if (params.async) throw captureErrors.invalidParameter('async', 'A render link answers with the file itself, never a queued job', 'false');
}
