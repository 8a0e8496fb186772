import { FORMATS } from '../core/schema/formats.js';
import { ERROR_CATALOGUE } from '../core/errors/catalogue.js';
import { captureReports } from './capture-route-doc.js';
import { LIMIT_HEADERS, pick, type OpenApiParts, type OpenApiPiece } from './openapi-parts.js';

/** `GET {base}/v1/captures/<id>` and `GET {base}/v1/webhook-secret`, and the status (also a webhook's body). */
export function asyncCaptureDoc({ routes, relative, errorResponses }: OpenApiParts): OpenApiPiece {
  return {
    paths: {
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
    },
    schemas: {
      CaptureStatus: {
        type: 'object',
        description: `Also the body POSTed to \`webhook_url\`, signed as Standard Webhooks do with the account's secret (\`GET ${relative(routes.webhookSecret)}\`): \`webhook-id\` (the same on every retry), \`webhook-timestamp\` (Unix seconds of the attempt), \`webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\`, and the same HMAC as \`X-Capture-Signature: sha256=<hex>\`. Refuse a timestamp more than 5 minutes away.`,
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
          ...captureReports(routes.filesPrefix),
          error: { type: 'object', properties: { code: { enum: Object.keys(ERROR_CATALOGUE) }, error: { type: 'string' } } },
        },
      },
    },
  };
}
