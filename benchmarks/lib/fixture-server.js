// Serves fixed pages on 127.0.0.1 and a free port: no traffic leaves the machine.
//
//   const fx = await startFixtureServer({ '/simple': html('<!doctype html>...'), '/pic.svg': { type: 'image/svg+xml', body } });
//   fx.url('/simple'); await fx.close();
//
// A path is matched without its query string; every answer has a Content-Length and
// `Cache-Control: no-store`; an unknown path is a 404.

import { startPageServer } from '../../fixtures/page-server.js';

/** An HTML page for startFixtureServer(). */
export const html = (body) => ({ type: 'text/html; charset=utf-8', body });

export async function startFixtureServer(pages, options = {}) {
  const routes = new Map(Object.entries(pages).map(([p, { type, body }]) => [p, { type, body: Buffer.from(body) }]));
  const server = await startPageServer((_req, res, url) => {
    const route = routes.get(url.pathname);
    if (!route) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': route.type, 'content-length': route.body.length, 'cache-control': 'no-store' });
    res.end(route.body);
  }, options);
  return { origin: server.origin, url: (path) => `${server.origin}${path}`, close: server.close };
}
