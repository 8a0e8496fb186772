import type { Context, Middleware, Next } from 'koa';
import type { CaptureEngine } from '../src/engine.js';
import { abortOnDisconnect, afterResponse, toHttpRequest } from './node-bridge.js';

/** Koa middleware: `app.use(captureMiddleware(engine))`. Other paths go to `next()` untouched. */
export function captureMiddleware(engine: CaptureEngine): Middleware {
  return async (ctx: Context, next: Next) => {
    if (!engine.ownsPath(ctx.path)) return next();
    const disconnect = abortOnDisconnect(ctx.res);
    const parsedBody = (ctx.request as { body?: unknown }).body;
    const request = await toHttpRequest(ctx.req, { bodyLimit: engine.options.bodyLimit, url: ctx.originalUrl, parsedBody });
    const response = await engine.handle(request, disconnect);
    afterResponse(ctx.res, response);
    ctx.status = response.status;
    ctx.set(response.headers);
    if (request.bodyTooLarge) ctx.set('Connection', 'close');
    ctx.body = response.body ?? '';
    // Koa drops Content-Length for streams; the interface promises it on every file.
    const length = response.headers['Content-Length'];
    if (length !== undefined) ctx.length = Number(length);
  };
}
