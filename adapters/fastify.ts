import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureHttp } from '../src/http/index.js';
import { abortOnDisconnect, afterResponse, requireCaptureHttp, toHttpRequest } from './node-bridge.js';

export interface CapturePluginOptions {
  /** The HTTP service of `createCaptureHttp`. */
  http: CaptureHttp;
}

/**
 * Fastify plugin: `fastify.register(capturePlugin, { http })`. Encapsulated on purpose: its raw
 * body handling applies to its own routes only, never to the app's.
 */
export async function capturePlugin(fastify: FastifyInstance, { http }: CapturePluginOptions): Promise<void> {
  requireCaptureHttp(http);
  // The bridge reads the raw body itself (limit, 413 in the interface's format); Fastify must not.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const handler = answerWith(http);
  // A Content-Type Fastify cannot even read (`;`, `a, b`) it refuses before any parser: the service
  // answers it instead, in its own format, like any other body it does not take.
  fastify.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && !reply.sent) return handler(request, reply);
    throw error;
  });
  for (const url of http.routes.patterns) fastify.all(url, handler);
}

/**
 * For the app's `Fastify({ frameworkErrors: captureFrameworkErrors(http) })`. Fastify refuses a path
 * it cannot decode (a bad percent-encoding) before any route, so before the plugin; with this, the
 * service answers such paths of its own, in its format (an id that cannot be one is 404), and
 * Fastify's 400 stays for the app's other paths.
 */
export function captureFrameworkErrors(http: CaptureHttp): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  requireCaptureHttp(http);
  const handler = answerWith(http);
  return async (error, request, reply) => (http.ownsPath((request.raw.url ?? '/').split('?')[0] ?? '/') ? handler(request, reply) : reply.code(error.statusCode ?? 400).send(error));
}

function answerWith(http: CaptureHttp): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (request, reply) => {
    const disconnect = abortOnDisconnect(reply.raw);
    const httpRequest = await toHttpRequest(http, request.raw, { url: request.raw.url });
    const response = await http.handle(httpRequest, disconnect);
    afterResponse(request.raw, reply.raw, response);
    // Returned, not awaited: awaiting a reply whose client has gone waits for a 'finish' that never comes.
    return reply.code(response.status).headers(response.headers).send(response.body ?? '');
  };
}
