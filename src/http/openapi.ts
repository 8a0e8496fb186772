import type { RouteTable } from './routes.js';
import { openApiParts, type OpenApiPiece } from './openapi-parts.js';
import { captureRouteDoc } from './capture-route-doc.js';
import { renderRouteDoc } from './render-route-doc.js';
import { bulkDoc } from './bulk/bulk-doc.js';
import { asyncCaptureDoc } from './async-capture-doc.js';
import { serveFileDoc } from './serve-file-doc.js';
import { mcpRouteDoc } from './mcp/mcp-route-doc.js';

/** What the service runs on: package.json's `engines`, and the lines `npm test` runs (scripts/node-lines.mjs). */
const RUNS_ON = 'Runs on Node.js 20.12 or newer; tested on Node.js 20, 22, 24 and 26.';

/**
 * The OpenAPI 3.1 document, built from the request schema and the error catalogue: each route says
 * what the schema cannot (its paths, answers and their schemas) in a `*-doc.ts` beside it, and this
 * assembles them, in the order a reader meets the routes.
 */
export function buildOpenApiDocument(routes: RouteTable): Record<string, unknown> {
  const parts = openApiParts(routes);
  const pieces: OpenApiPiece[] = [captureRouteDoc, renderRouteDoc, bulkDoc, asyncCaptureDoc, serveFileDoc, mcpRouteDoc].map((doc) => doc(parts));
  return {
    openapi: '3.1.0',
    info: { title: 'capture-engine', version: '1', description: `Screenshots and videos of web pages. ${RUNS_ON}` },
    servers: [{ url: routes.basePath || '/' }],
    security: [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }],
    paths: Object.assign({}, ...pieces.map(({ paths }) => paths)) as Record<string, object>,
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
      schemas: Object.assign({}, ...pieces.map(({ schemas }) => schemas ?? {})) as Record<string, object>,
    },
  };
}
