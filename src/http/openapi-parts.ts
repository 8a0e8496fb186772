import { ERROR_CATALOGUE, type ErrorCode } from '../core/errors/catalogue.js';
import { captureParamsJsonSchema } from '../core/schema/capture-params.js';
import type { RouteTable } from './routes.js';

/**
 * What every route's part of the OpenAPI document shares: the limit and request-id headers every answer carries,
 * the error answers of the catalogue, the capture parameters as query parameters. Each route
 * documents itself beside its code (`*-doc.ts`); `openapi.ts` assembles them.
 */
export interface OpenApiParts {
  routes: RouteTable;
  /** A route's path under the document's server (`servers: [{ url: basePath }]`). */
  relative(path: string): string;
  paramsSchema: Record<string, unknown>;
  /** Every capture parameter but `files`, as a query parameter, and `api_key`. */
  queryParameters: { name: string; in: string; required: boolean; description?: unknown; schema: Record<string, unknown> }[];
  /** One answer per status of the error catalogue, naming its codes. */
  errorResponses: Record<string, object>;
}

/** A route's part of the document: its paths, and the schemas they name. */
export interface OpenApiPiece {
  paths: Record<string, object>;
  schemas?: Record<string, object>;
}

export const LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per minute', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in this window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, Unix time in milliseconds', schema: { type: 'integer' } },
  'X-Quota-Limit': { description: 'Captures allowed this month (requests with a valid key)', schema: { type: 'integer' } },
  'X-Quota-Remaining': { description: 'Captures left this month (requests with a valid key)', schema: { type: 'integer' } },
  'X-Request-Id': { description: "The request's id: the caller's own X-Request-Id when it is 1 to 128 letters, digits or `-_.:/+=`, else a UUID the service made. It is in the access log line, the request's span (`http.request.header.x-request-id`), the JSON body of a capture (`request_id`: `response_type=json`, `async=true`) and of every error, an async capture's status (`request_id`) and its webhook (`X-Request-Id`)", schema: { type: 'string' } },
};

/** `strict`: names that are no capture parameter refused instead of warned about. */
export const STRICT_PARAMETER = {
  name: 'strict',
  in: 'query',
  required: false,
  description: 'true: a name that is no capture parameter is 400 INVALID_PARAMETER naming it, instead of a `Capture-Warning` (the service default is its `strictParams`)',
  schema: { type: 'boolean' },
};

/** What a request's unknown parameter names are answered with, whatever the status. */
export const WARNING_HEADER = {
  'Capture-Warning': { description: 'The names of the request that are no capture parameter (ignored), each with the known name closest to it: `unknown parameter "viewport_widht" ignored (did you mean "viewport_width"?)`', schema: { type: 'string' } },
};

/** `Idempotency-Key` on a POST that captures or queues. */
export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Sent again with the same parameters within 24 h, the request gets the first successful answer (same capture, no quota, `Idempotent-Replayed: true`); with other parameters 422 IDEMPOTENCY_KEY_REUSED; while the first runs 409 IDEMPOTENCY_KEY_IN_USE.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

export function openApiParts(routes: RouteTable): OpenApiParts {
  const paramsSchema = captureParamsJsonSchema();
  const properties = paramsSchema.properties as Record<string, Record<string, unknown>>;
  const queryParameters = [
    // Uploaded files come in a body only.
    ...Object.entries(properties).filter(([name]) => name !== 'files').map(([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      description: schema.description,
      schema: withoutDescription(schema),
    })),
    { name: 'api_key', in: 'query', required: false, description: 'API key (alternative to X-API-Key)', schema: { type: 'string' } },
    { name: 'X-Request-Id', in: 'header', required: false, description: 'Your id for the request, echoed in X-Request-Id (another one is made when it is not 1 to 128 letters, digits or `-_.:/+=`)', schema: { type: 'string', maxLength: 128 } },
    STRICT_PARAMETER,
  ];
  const errorResponses = Object.fromEntries(
    [...new Set(Object.values(ERROR_CATALOGUE).map((entry) => entry.status))].map((status) => {
      const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => ERROR_CATALOGUE[code].status === status);
      return [
        String(status),
        {
          description: codes.join(', '),
          headers: LIMIT_HEADERS,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ];
    }),
  );
  return { routes, relative: (path) => path.slice(routes.basePath.length), paramsSchema, queryParameters, errorResponses };
}

export function withoutDescription(schema: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, ...rest } = schema;
  return rest;
}

export function pick<T>(record: Record<string, T>, keys: string[]): Record<string, T> {
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key] as T]));
}
