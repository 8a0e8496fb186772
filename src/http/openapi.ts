import { ERROR_CATALOGUE, type ErrorCode } from '../core/errors/catalogue.js';
import { captureParamsJsonSchema } from '../core/schema/capture-params.js';
import { FORMATS } from '../core/schema/formats.js';
import type { RouteTable } from './routes.js';

const LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per minute', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in this window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, Unix time in milliseconds', schema: { type: 'integer' } },
  'X-Quota-Limit': { description: 'Captures allowed this month (requests with a valid key)', schema: { type: 'integer' } },
  'X-Quota-Remaining': { description: 'Captures left this month (requests with a valid key)', schema: { type: 'integer' } },
};

/** What a capture's JSON answer and an async capture's status say about how it went, when asked. */
function captureReports(filesPrefix: string): Record<string, object> {
  return {
    incomplete: { type: 'array', items: { type: 'string' }, description: '`best_effort=true`: the waits that ran out' },
    diagnostics: {
      type: 'object',
      description: '`diagnostics=true`: what the page did; values of `headers` and `cookies` redacted',
      properties: {
        document: { type: 'object', properties: { url: { type: ['string', 'null'] }, status: { type: ['integer', 'null'] }, timing: { type: 'object', additionalProperties: { type: 'number' } } } },
        redirects: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' }, status: { type: 'integer' } } } },
        console: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, text: { type: 'string' } } } },
        requests: {
          type: 'object',
          properties: {
            total: { type: 'integer' },
            failed: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' }, error: { type: 'string' } } } },
            blocked: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' }, reason: { type: 'string' } } } },
            counts: { type: 'object', properties: { finished: { type: 'integer' }, failed: { type: 'integer' }, blocked: { type: 'integer' } } },
          },
        },
        waits: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, outcome: { enum: ['met', 'ran_out'] }, ms: { type: 'integer' } } } },
      },
    },
    har_url: { type: 'string', description: `\`har=true\`: relative url of the HAR 1.2 of the page load, under ${filesPrefix}` },
    uploaded: { const: true, description: '`upload_url`: the file was PUT there' },
    upload_status: { type: 'integer', description: "`upload_url`: the storage's answer" },
    upload_attempts: { type: 'integer', description: '`upload_url`: tries it took' },
  };
}

/** `Idempotency-Key` on a POST that captures or queues. */
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Sent again with the same parameters within 24 h, the request gets the first successful answer (same capture, no quota, `Idempotent-Replayed: true`); with other parameters 422 IDEMPOTENCY_KEY_REUSED; while the first runs 409 IDEMPOTENCY_KEY_IN_USE.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** The OpenAPI 3.1 document, built from the request schema and the error catalogue. */
export function buildOpenApiDocument(routes: RouteTable): Record<string, unknown> {
  const relative = (path: string): string => path.slice(routes.basePath.length);
  const paramsSchema = captureParamsJsonSchema();
  const reports = captureReports(routes.filesPrefix);
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
  const cacheHeaders = {
    'X-Cache': { description: 'With cache=true: HIT, STALE (served while being refreshed) or MISS', schema: { enum: ['HIT', 'STALE', 'MISS'] } },
    Age: { description: 'Seconds since the cached capture was taken', schema: { type: 'integer' } },
    ETag: { description: 'Strong validator of the cached bytes; send it back in If-None-Match', schema: { type: 'string' } },
    'Cache-Control': { description: '`public` (render links) or `private` (/v1/capture), `max-age` = the entry\'s remaining freshness', schema: { type: 'string' } },
  };
  const captureResponses = {
    '200': {
      description: 'The capture: the file itself (`response_type=image`) or its description (`response_type=json`).',
      headers: {
        ...LIMIT_HEADERS,
        ...cacheHeaders,
        'X-Capture-Id': { schema: { type: 'string' } },
        'Server-Timing': { description: 'Milliseconds waiting for a browser (`queue`) and in each phase a capture ran (a failed one too, up to its failure), how the cache answered (`cache;desc="HIT"`), and the whole request (`total`): `queue;dur=1.2, prepare;dur=3.4, ..., total;dur=260.5`', schema: { type: 'string' } },
        'X-Capture-Incomplete': { description: '`best_effort=true`: the waits that ran out, comma-separated; the capture is of the page as it was', schema: { type: 'string' } },
      },
      content: {
        ...Object.fromEntries(Object.values(FORMATS).map(({ contentType }) => [contentType, { schema: { type: 'string', format: 'binary' } }])),
        'application/json': { schema: { $ref: '#/components/schemas/CaptureResult' } },
      },
    },
    '202': {
      description: '`async=true`: the capture is queued; read its status at `status_url` (also in `Location`).',
      headers: { ...LIMIT_HEADERS, Location: { schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CaptureQueued' } } },
    },
    ...errorResponses,
  };
  const linkParameters = [
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
  const renderResponses = {
    '200': { description: 'The file (cached unless the link says cache=false)', headers: captureResponses['200'].headers, content: pick(captureResponses['200'].content, Object.values(FORMATS).map(({ contentType }) => contentType)) },
    '304': { description: 'If-None-Match matched the cached capture', headers: cacheHeaders },
    ...errorResponses,
  };
  return {
    openapi: '3.1.0',
    info: { title: 'capture-engine', version: '1', description: 'Screenshots and videos of web pages.' },
    servers: [{ url: routes.basePath || '/' }],
    security: [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }],
    paths: {
      [relative(routes.capture)]: {
        get: { operationId: 'captureGet', summary: 'Capture a page', parameters: queryParameters, responses: captureResponses },
        post: {
          operationId: 'capturePost',
          summary: 'Capture a page (parameters in the body)',
          parameters: [IDEMPOTENCY_HEADER],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/CaptureParams' } },
              'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/CaptureParams' } },
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  description: 'A document and its assets as files (an index.html or index.md and what it references by relative paths, each file named by its path), and any capture parameter as a field.',
                  properties: { files: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' } } },
                  additionalProperties: true,
                },
              },
            },
          },
          responses: captureResponses,
        },
      },
      [relative(routes.render)]: {
        get: { operationId: 'render', summary: 'A signed render link: the capture for an <img src>, cached, without the API key', security: [], parameters: linkParameters, responses: renderResponses },
        head: { operationId: 'renderHead', summary: 'Warm a render link: capture (or find it cached) and answer the headers only', security: [], parameters: linkParameters, responses: renderResponses },
      },
      [relative(routes.bulk)]: {
        post: {
          operationId: 'bulkPost',
          summary: "A batch of asynchronous captures (up to the tier's batch items), 202 at once",
          parameters: [IDEMPOTENCY_HEADER],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/BulkRequest' } } } },
          responses: {
            '202': {
              description: 'Queued: one asynchronous capture per item',
              headers: LIMIT_HEADERS,
              content: { 'application/json': { schema: { type: 'object', required: ['id', 'status', 'status_url', 'items'], properties: { id: { type: 'string' }, status: { const: 'queued' }, status_url: { type: 'string' }, items: { type: 'integer' } } } } },
            },
            ...pick(errorResponses, ['400', '401', '403', '409', '413', '422', '429', '503']),
          },
        },
      },
      [`${relative(routes.bulkPrefix)}{id}`]: {
        get: {
          operationId: 'getBulkStatus',
          summary: "A batch's counts and one page of its items (for the key that sent it only)",
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          ],
          responses: {
            '200': { description: 'Its status', headers: LIMIT_HEADERS, content: { 'application/json': { schema: { $ref: '#/components/schemas/BulkStatus' } } } },
            ...pick(errorResponses, ['400', '401', '404']),
          },
        },
      },
      [`${relative(routes.capturesPrefix)}{id}`]: {
        get: {
          operationId: 'getCaptureStatus',
          summary: 'Status of an asynchronous capture (for the key that asked for it only)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'Its status', headers: LIMIT_HEADERS, content: { 'application/json': { schema: { $ref: '#/components/schemas/CaptureStatus' } } } },
            ...pick(errorResponses, ['401', '404']),
          },
        },
      },
      [relative(routes.webhookSecret)]: {
        get: {
          operationId: 'getWebhookSecret',
          summary: "The secret this key's account's webhooks are signed with (each account has its own)",
          responses: {
            '200': {
              description: 'The secret',
              headers: LIMIT_HEADERS,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['secret'],
                    properties: { secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'Standard Webhooks form: `whsec_` and the base64 of the HMAC key' } },
                  },
                },
              },
            },
            ...pick(errorResponses, ['401', '404']),
          },
        },
      },
      [`${relative(routes.filesPrefix)}{path}`]: {
        get: {
          operationId: 'getFile',
          summary: 'Download a stored capture (byte ranges supported)',
          security: [],
          parameters: [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'The file' },
            '206': { description: 'Part of the file' },
            ...pick(errorResponses, ['404', '416']),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
      schemas: {
        CaptureParams: { ...paramsSchema, properties: { ...(paramsSchema.properties as object), api_key: { type: 'string' } } },
        CaptureResult: {
          type: 'object',
          required: ['url', 'size', 'format', 'status', 'id'],
          properties: {
            url: { type: 'string', description: `Relative url of the stored file, under ${routes.filesPrefix}` },
            size: { type: 'integer', description: 'Bytes' },
            format: { enum: Object.keys(FORMATS).map((format) => format.toUpperCase()) },
            status: { const: 'completed' },
            id: { type: 'string' },
            clipped_from: { type: 'integer', description: 'Height of the page in px when the full-page image was cut shorter' },
            ...reports,
          },
        },
        CaptureQueued: {
          type: 'object',
          required: ['id', 'status', 'status_url'],
          properties: { id: { type: 'string' }, status: { const: 'queued' }, status_url: { type: 'string' } },
        },
        CaptureStatus: {
          type: 'object',
          description:
            `Also the body POSTed to \`webhook_url\`, signed as Standard Webhooks do with the account's secret (\`GET ${relative(routes.webhookSecret)}\`): \`webhook-id\` (the same on every retry), \`webhook-timestamp\` (Unix seconds of the attempt), \`webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\`, and the same HMAC as \`X-Capture-Signature: sha256=<hex>\`. Refuse a timestamp more than 5 minutes away.`,
          required: ['id', 'status', 'created_at'],
          properties: {
            id: { type: 'string' },
            status: { enum: ['queued', 'processing', 'completed', 'failed'] },
            created_at: { type: 'string', format: 'date-time' },
            started_at: { type: 'string', format: 'date-time' },
            finished_at: { type: 'string', format: 'date-time' },
            url: { type: 'string', description: `Relative url of the stored file, under ${routes.filesPrefix}` },
            size: { type: 'integer' },
            format: { enum: Object.keys(FORMATS).map((format) => format.toUpperCase()) },
            ...reports,
            error: { type: 'object', properties: { code: { enum: Object.keys(ERROR_CATALOGUE) }, error: { type: 'string' } } },
          },
        },
        BulkRequest: {
          type: 'object',
          required: ['items'],
          properties: {
            defaults: { $ref: '#/components/schemas/CaptureParams' },
            items: {
              type: 'array',
              minItems: 1,
              items: { oneOf: [{ type: 'string', description: 'A URL' }, { type: 'object', description: 'Capture parameters over `defaults`, and `id`: your id for the item', additionalProperties: true }] },
            },
            webhook_url: { type: 'string', description: 'Told once, signed, with every item, when the batch is settled' },
          },
          additionalProperties: false,
        },
        BulkStatus: {
          type: 'object',
          description: 'Also the body POSTed to the batch\'s `webhook_url` (with every item), signed like a capture\'s.',
          required: ['id', 'status', 'created_at', 'total', 'counts', 'offset', 'limit', 'items'],
          properties: {
            id: { type: 'string' },
            status: { enum: ['queued', 'processing', 'completed'] },
            created_at: { type: 'string', format: 'date-time' },
            finished_at: { type: 'string', format: 'date-time' },
            total: { type: 'integer' },
            counts: { type: 'object', properties: Object.fromEntries(['queued', 'processing', 'completed', 'failed'].map((state) => [state, { type: 'integer' }])) },
            offset: { type: 'integer' },
            limit: { type: 'integer' },
            items: { type: 'array', items: { allOf: [{ $ref: '#/components/schemas/CaptureStatus' }, { type: 'object', properties: { index: { type: 'integer' }, item_id: { type: 'string' } } }] } },
          },
        },
        Error: {
          type: 'object',
          required: ['error', 'code'],
          properties: { error: { type: 'string' }, code: { enum: Object.keys(ERROR_CATALOGUE) } },
          additionalProperties: true,
        },
      },
    },
  };
}

function withoutDescription(schema: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, ...rest } = schema;
  return rest;
}

function pick<T>(record: Record<string, T>, keys: string[]): Record<string, T> {
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key] as T]));
}
