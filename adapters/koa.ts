import type { Context, Middleware, Next } from 'koa';
import type { CaptureHttp } from '../src/http/index.js';
import { abortOnDisconnect, afterResponse, requireCaptureHttp, toHttpRequest } from './node-bridge.js';

/** Koa middleware: `app.use(captureMiddleware(http))`, with the HTTP service of `createCaptureHttp`. Other paths go to `next()` untouched. */
export function captureMiddleware(http: CaptureHttp): Middleware {
  requireCaptureHttp(http);
  return async (ctx: Context, next: Next) => {
    if (!http.ownsPath(ctx.path)) return next();
    const disconnect = abortOnDisconnect(ctx.res);
    const parsedBody = (ctx.request as { body?: unknown }).body;
    const request = await toHttpRequest(http, ctx.req, { url: ctx.originalUrl, parsedBody });
    const response = await http.handle(request, disconnect);
    afterResponse(ctx.req, ctx.res, response);
    ctx.status = response.status;
    ctx.set(response.headers);
    ctx.body = response.body ?? '';
    // Koa drops Content-Length for streams; the interface promises it on every file.
    const length = response.headers['Content-Length'];
    if (length !== undefined) ctx.length = Number(length);
  };
}
