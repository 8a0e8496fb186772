import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { CaptureEngine } from '../src/engine.js';
import { handleNodeRequest } from './node-bridge.js';

/**
 * Express middleware: `app.use(captureMiddleware(engine))` or `app.use('/api', ...)`. Paths outside
 * the interface go to `next()` untouched.
 */
export function captureMiddleware(engine: CaptureEngine): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const url = req.originalUrl || req.url;
    if (!engine.ownsPath(url.split('?')[0] ?? '/')) {
      next();
      return;
    }
    handleNodeRequest(engine, req, res, { url, parsedBody: req.body }).catch(next);
  };
}
