import { IDEMPOTENCY_HEADER, LIMIT_HEADERS, pick, type OpenApiParts, type OpenApiPiece } from '../openapi-parts.js';

/** `POST {base}/v1/bulk` and `GET {base}/v1/bulk/<id>`, and their schemas. */
export function bulkDoc({ routes, relative, errorResponses }: OpenApiParts): OpenApiPiece {
  return {
    paths: {
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
              content: {
                'application/json': {
                  schema: { type: 'object', required: ['id', 'status', 'status_url', 'items'], properties: { id: { type: 'string' }, status: { const: 'queued' }, status_url: { type: 'string' }, items: { type: 'integer' } } },
                },
              },
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
    },
    schemas: {
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
        description: "Also the body POSTed to the batch's `webhook_url` (with every item), signed like a capture's.",
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
    },
  };
}
