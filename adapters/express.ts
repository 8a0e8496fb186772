import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { CaptureHttp } from '../src/http/index.js';
import { handleNodeRequest, requireCaptureHttp } from './node-bridge.js';

/**
 * Express middleware: `app.use(captureMiddleware(http))` or `app.use('/api', ...)`, with the HTTP
 * service of `createCaptureHttp`. Paths outside the interface go to `next()` untouched.
 */
export function captureMiddleware(http: CaptureHttp): RequestHandler {
  requireCaptureHttp(http);
  return (req: Request, res: Response, next: NextFunction) => {
    const url = req.originalUrl || req.url;
    if (!http.ownsPath(url.split('?')[0] ?? '/')) {
      next();
      return;
    }
    handleNodeRequest(http, req, res, { url, parsedBody: req.body }).catch(next);
  };
}

/** Refusals of Express's body parsers (`express.json()`, ...) that the interface answers itself. */
const BODY_REFUSALS = new Set(['entity.parse.failed', 'entity.too.large', 'charset.unsupported', 'encoding.unsupported']);

/**
 * For an app whose body parser runs before the interface (`app.use(express.json())`): a body that
 * parser refused (malformed JSON, over its own limit, a charset it does not read) is answered on the
 * interface's paths as the interface answers it, in its format and with the limit headers, instead
 * of Express's HTML error page. Anything else goes on to `next`. Mount it after the middleware:
 * `app.use('/api', captureMiddleware(http), captureErrorHandler(http))`.
 */
export function captureErrorHandler(http: CaptureHttp): ErrorRequestHandler {
  requireCaptureHttp(http);
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const url = req.originalUrl || req.url;
    const { type, body } = (error ?? {}) as { type?: unknown; body?: unknown };
    if (res.headersSent || typeof type !== 'string' || !BODY_REFUSALS.has(type) || !http.ownsPath(url.split('?')[0] ?? '/')) {
      next(error);
      return;
    }
    // What the parser read is gone from the stream: the service gets the text it could not parse, or
    // is told the body was too large. A charset it refused was not read, and the service reads it.
    const read = type === 'entity.too.large' ? { bodyTooLarge: true } : typeof body === 'string' ? { parsedBody: Buffer.from(body) } : {};
    handleNodeRequest(http, req, res, { url, ...read }).catch(next);
  };
}
