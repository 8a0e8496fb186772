import { pick, type OpenApiParts, type OpenApiPiece } from '../openapi-parts.js';

/** `POST {base}/v1/mcp`: its messages are MCP's, documented by the protocol, not here. */
export function mcpRouteDoc({ routes, relative, errorResponses }: OpenApiParts): OpenApiPiece {
  return {
    paths: {
      [relative(routes.mcp)]: {
        post: {
          operationId: 'mcp',
          summary: 'The MCP server over Streamable HTTP (stateless): one JSON-RPC message per request, each tool call a capture under the key\'s limits (docs/mcp.md)',
          security: [{ ApiKeyHeader: [] }],
          externalDocs: { url: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http' },
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol' } } } },
          responses: {
            '200': { description: 'The JSON-RPC answer; a refused capture is a tool result with isError and the error as text', content: { 'application/json': { schema: { type: 'object' } } } },
            '202': { description: 'A notification, accepted' },
            ...pick(errorResponses, ['400', '401', '405', '413', '429']),
          },
        },
      },
    },
  };
}
