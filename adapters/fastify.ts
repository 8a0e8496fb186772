import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toCaptureHttp } from '../src/http/index.js';
import { abortOnDisconnect, afterResponse, toHttpRequest, type CaptureHttpSource } from './node-bridge.js';

export interface CapturePluginOptions {
  /** The HTTP service of `createCaptureHttp`. */
  http?: CaptureHttpSource;
  /** An engine, whose service is made from the options it was created with (the older way). */
  engine?: CaptureHttpSource;
}

/**
 * Fastify plugin: `fastify.register(capturePlugin, { http })` (or `{ engine }`). Encapsulated on
 * purpose: its raw body handling applies to its own routes only, never to the app's.
 */
export async function capturePlugin(fastify: FastifyInstance, options: CapturePluginOptions): Promise<void> {
  const source = options.http ?? options.engine;
  if (!source) throw new TypeError('capturePlugin needs { http } or { engine }');
  const http = toCaptureHttp(source);
  // The bridge reads the raw body itself (limit, 413 in the interface's format); Fastify must not.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const disconnect = abortOnDisconnect(reply.raw);
    const httpRequest = await toHttpRequest(request.raw, { bodyLimit: http.bodyLimit, url: request.raw.url });
    const response = await http.handle(httpRequest, disconnect);
    afterResponse(reply.raw, response);
    // Returned, not awaited: awaiting a reply whose client has gone waits for a 'finish' that never comes.
    return reply.code(response.status).headers(response.headers).send(response.body ?? '');
  };
  for (const url of http.routes.patterns) fastify.all(url, handler);
}
