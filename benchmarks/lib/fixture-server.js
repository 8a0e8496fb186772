// Serves fixed pages on 127.0.0.1 and a free port: no traffic leaves the machine.
//
//   const fx = await startFixtureServer({ '/simple': html('<!doctype html>...'), '/pic.svg': { type: 'image/svg+xml', body } });
//   fx.url('/simple'); await fx.close();
//
// A path is matched without its query string; every answer has a Content-Length and
// `Cache-Control: no-store`; an unknown path is a 404.

import http from 'node:http';

/** An HTML page for startFixtureServer(). */
export const html = (body) => ({ type: 'text/html; charset=utf-8', body });

export async function startFixtureServer(pages, { host = '127.0.0.1', port = 0, keepAliveTimeout } = {}) {
  const routes = new Map(Object.entries(pages).map(([p, { type, body }]) => [p, { type, body: Buffer.from(body) }]));
  const server = http.createServer((req, res) => {
    const route = routes.get((req.url || '/').split('?')[0]);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': route.type, 'content-length': route.body.length, 'cache-control': 'no-store' });
    res.end(route.body);
  });
  if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const origin = `http://${host}:${server.address().port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
