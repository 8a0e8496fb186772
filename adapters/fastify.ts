import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureEngine } from '../src/engine.js';
import { abortOnDisconnect, afterResponse, toHttpRequest } from './node-bridge.js';

export interface CapturePluginOptions {
  engine: CaptureEngine;
}

/**
 * Fastify plugin: `fastify.register(capturePlugin, { engine })`. Encapsulated on purpose: its raw
 * body handling applies to its own routes only, never to the app's.
 */
export async function capturePlugin(fastify: FastifyInstance, { engine }: CapturePluginOptions): Promise<void> {
  // The bridge reads the raw body itself (limit, 413 in the interface's format); Fastify must not.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const disconnect = abortOnDisconnect(reply.raw);
    const httpRequest = await toHttpRequest(request.raw, { bodyLimit: engine.options.bodyLimit, url: request.raw.url });
    const response = await engine.handle(httpRequest, disconnect);
    afterResponse(reply.raw, response);
    if (httpRequest.bodyTooLarge) reply.header('Connection', 'close');
    // Returned, not awaited: awaiting a reply whose client has gone waits for a 'finish' that never comes.
    return reply.code(response.status).headers(response.headers).send(response.body ?? '');
  };
  const base = engine.options.basePath;
  for (const url of [`${base}/v1/capture`, `${base}/v1/*`, `${base}/files/*`]) fastify.all(url, handler);
}
