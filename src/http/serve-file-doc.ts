import { pick, type OpenApiParts, type OpenApiPiece } from './openapi-parts.js';

/** `GET {base}/files/<path>`. */
export function serveFileDoc({ routes, relative, errorResponses }: OpenApiParts): OpenApiPiece {
  return {
    paths: {
      [`${relative(routes.filesPrefix)}{path}`]: {
        get: {
          operationId: 'getFile',
          summary: "Download a stored capture (byte ranges supported); a cached capture's file with its owner's key only",
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
  };
}
