import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * `GET /metrics` in Prometheus' text format on a port of its own (not the public service port), and
 * `GET /readyz` with its reasons and pressure readings when `readiness` gives them.
 */
export async function startMetricsServer(registry: Registry, port: number, host = '0.0.0.0', readiness?: () => Promise<{ status: number; headers: Record<string, string>; body?: unknown }>): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/readyz' && readiness) {
      return void readiness().then(
        (answer) => res.writeHead(answer.status, answer.headers).end(typeof answer.body === 'string' ? answer.body : ''),
        () => res.writeHead(500).end(),
      );
    }
    if (req.method !== 'GET' || path !== '/metrics') return void res.writeHead(404).end();
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}
