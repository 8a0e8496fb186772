import { FORMATS } from '../core/schema/formats.js';
import { CACHE_HEADERS, CAPTURE_FILE_ANSWER } from './capture-route-doc.js';
import { pick, type OpenApiParts, type OpenApiPiece } from './openapi-parts.js';

/** `GET|HEAD {base}/v1/render`: a signed link, open to anyone holding it. */
export function renderRouteDoc({ routes, relative, queryParameters, errorResponses }: OpenApiParts): OpenApiPiece {
  const parameters = [
    ...queryParameters.filter(({ name }) => name !== 'api_key' && name !== 'async' && name !== 'webhook_url' && name !== 'response_type'),
    { name: 'key', in: 'query', required: true, description: "The key's public id (`ce_...`), never the key itself", schema: { type: 'string' } },
    { name: 'expires', in: 'query', required: false, description: 'Unix seconds after which the link answers 403 LINK_EXPIRED', schema: { type: 'integer' } },
    {
      name: 'signature',
      in: 'query',
      required: true,
      description: "Hex HMAC-SHA256, with the key's signing secret, of every other parameter sorted by name, each `name=value` RFC 3986 percent-encoded, joined with `&`",
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  ];
  const responses = {
    '200': {
      description: 'The file (cached unless the link says cache=false)',
      headers: CAPTURE_FILE_ANSWER.headers,
      content: pick(CAPTURE_FILE_ANSWER.content, Object.values(FORMATS).map(({ contentType }) => contentType)),
    },
    '304': { description: 'If-None-Match matched the cached capture', headers: CACHE_HEADERS },
    ...errorResponses,
  };
  return {
    paths: {
      [relative(routes.render)]: {
        get: { operationId: 'render', summary: 'A signed render link: the capture for an <img src>, cached, without the API key', security: [], parameters, responses },
        head: { operationId: 'renderHead', summary: 'Warm a render link: capture (or find it cached) and answer the headers only', security: [], parameters, responses },
      },
    },
  };
}
