import type { NextFunction, Request, RequestHandler, Response } from 'express';
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
