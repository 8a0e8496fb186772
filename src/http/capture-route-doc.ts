import { CONTENT_FORMATS, FORMATS } from '../core/schema/formats.js';
import { ERROR_CATALOGUE } from '../core/errors/catalogue.js';
import { IDEMPOTENCY_HEADER, LIMIT_HEADERS, STRICT_PARAMETER, WARNING_HEADER, type OpenApiParts, type OpenApiPiece } from './openapi-parts.js';

/** What a capture's JSON answer and an async capture's status say about how it went, when asked. */
export function captureReports(filesPrefix: string): Record<string, object> {
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
    files: {
      type: 'array',
      description: `\`pdf_split\` (not unified): the split's PDFs in order, each stored beside the ZIP that \`url\` is`,
      items: {
        type: 'object',
        required: ['url', 'pages'],
        properties: { url: { type: 'string', description: `Relative url of the PDF, under ${filesPrefix}` }, pages: { type: 'string', description: 'The pages it holds, as qpdf names them: `1-2`, `3`' } },
      },
    },
    ...Object.fromEntries(CONTENT_FORMATS.map((name) => [`${name}_url`, { type: 'string', description: `\`outputs=${name}\`: relative url of the page's ${name} (as format=${name} answers it) from the same render, under ${filesPrefix}` }])),
    uploaded: { const: true, description: '`upload_url`: the file was PUT there' },
    upload_status: { type: 'integer', description: "`upload_url`: the storage's answer" },
    upload_attempts: { type: 'integer', description: '`upload_url`: tries it took' },
  };
}

export const CACHE_HEADERS = {
  'X-Cache': { description: 'With cache=true: HIT, STALE (served while being refreshed) or MISS', schema: { enum: ['HIT', 'STALE', 'MISS'] } },
  Age: { description: 'Seconds since the cached capture was taken', schema: { type: 'integer' } },
  ETag: { description: 'Strong validator of the cached bytes; send it back in If-None-Match', schema: { type: 'string' } },
  'Cache-Control': { description: '`public` (render links) or `private` (/v1/capture), `max-age` = the entry\'s remaining freshness', schema: { type: 'string' } },
};

/** The file answer of a capture, which render links give too. */
export const CAPTURE_FILE_ANSWER = {
  description: 'The capture: the file itself (`response_type=image`) or its description (`response_type=json`).',
  headers: {
    ...LIMIT_HEADERS,
    ...WARNING_HEADER,
    ...CACHE_HEADERS,
    'X-Capture-Id': { schema: { type: 'string' } },
    'Server-Timing': {
      description:
        'Milliseconds waiting for a browser (`queue`) and in each phase a capture ran (a failed one too, up to its failure), how the cache answered (`cache;desc="HIT"`), and the whole request (`total`): `queue;dur=1.2, prepare;dur=3.4, ..., total;dur=260.5`',
      schema: { type: 'string' },
    },
    'X-Capture-Incomplete': {
      description: '`best_effort=true`: the waits that ran out, comma-separated; the capture is of the page as it was. Also the outputs cut at their bound (`markdown`, `links`...), whose JSON says `truncated: true`',
      schema: { type: 'string' },
    },
  },
  content: {
    ...Object.fromEntries(Object.values(FORMATS).map(({ contentType }) => [contentType, { schema: { type: 'string', format: 'binary' } }])),
    'application/zip': { schema: { type: 'string', format: 'binary', description: '`pdf_split` (not unified): one PDF a file, in order, each named by its pages (`pages-1-2.pdf`), stored (not compressed again)' } },
    // format=links, metadata and scrape are JSON too.
    'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/CaptureResult' }, { type: 'object', description: 'format=links, metadata or scrape' }] } },
  },
};

/** `GET|POST {base}/v1/capture`, and the schemas of its answers. */
export function captureRouteDoc({ routes, relative, queryParameters, paramsSchema, errorResponses }: OpenApiParts): OpenApiPiece {
  const responses = {
    '200': CAPTURE_FILE_ANSWER,
    '202': {
      description: '`async=true`: the capture is queued; read its status at `status_url` (also in `Location`).',
      headers: { ...LIMIT_HEADERS, Location: { schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CaptureQueued' } } },
    },
    ...errorResponses,
  };
  return {
    paths: {
      [relative(routes.capture)]: {
        get: { operationId: 'captureGet', summary: 'Capture a page', parameters: queryParameters, responses },
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
          responses,
        },
      },
    },
    schemas: {
      CaptureParams: { ...paramsSchema, properties: { ...(paramsSchema.properties as object), api_key: { type: 'string' }, strict: { type: 'boolean', description: STRICT_PARAMETER.description } } },
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
          warnings: { type: 'array', items: { type: 'string' }, description: 'What the `Capture-Warning` header says, one entry per unknown parameter name' },
          request_id: { type: 'string', description: "The request's id, as its X-Request-Id header" },
          ...captureReports(routes.filesPrefix),
        },
      },
      CaptureQueued: {
        type: 'object',
        required: ['id', 'status', 'status_url'],
        properties: { id: { type: 'string' }, status: { const: 'queued' }, status_url: { type: 'string' }, request_id: { type: 'string', description: "The request's id, as its X-Request-Id header" } },
      },
      Error: {
        type: 'object',
        required: ['error', 'code'],
        properties: { error: { type: 'string' }, code: { enum: Object.keys(ERROR_CATALOGUE) }, request_id: { type: 'string', description: "The request's id, as its X-Request-Id header" } },
        additionalProperties: true,
      },
    },
  };
}
