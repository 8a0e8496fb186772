import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const disconnect = abortOnDisconnect(reply.raw);
    const httpRequest = await toHttpRequest(http, request.raw, { url: request.raw.url });
    const response = await http.handle(httpRequest, disconnect);
    afterResponse(reply.raw, response);
    // Returned, not awaited: awaiting a reply whose client has gone waits for a 'finish' that never comes.
    return reply.code(response.status).headers(response.headers).send(response.body ?? '');
  };
  for (const url of http.routes.patterns) fastify.all(url, handler);
}
