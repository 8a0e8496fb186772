import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { toCaptureHttp } from '../src/http/index.js';
import { handleNodeRequest, type CaptureHttpSource } from './node-bridge.js';

/**
 * Express middleware: `app.use(captureMiddleware(http))` or `app.use('/api', ...)`, with the HTTP
 * service of `createCaptureHttp` (or an engine). Paths outside the interface go to `next()` untouched.
 */
export function captureMiddleware(source: CaptureHttpSource): RequestHandler {
  const http = toCaptureHttp(source);
  return (req: Request, res: Response, next: NextFunction) => {
    const url = req.originalUrl || req.url;
    if (!http.ownsPath(url.split('?')[0] ?? '/')) {
      next();
      return;
    }
    handleNodeRequest(http, req, res, { url, parsedBody: req.body }).catch(next);
  };
}
