import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookDelivery {
  /** The path (and query) it was POSTed to. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (Unix ms). */
  receivedAt: number;
}

export interface WebhookReceiver {
  /** Every POST received, in order. */
  readonly deliveries: WebhookDelivery[];
  readonly port: number;
  /** A URL on the receiver. */
  url(path: string): string;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that keeps every delivery and answers 204, or what `answer`
 * says for it (a 500 to make the sender retry).
 */
export async function startWebhookReceiver(answer: (delivery: WebhookDelivery) => number = () => 204): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const delivery = { url: req.url ?? '/', headers: req.headers, body, receivedAt: Date.now() };
      deliveries.push(delivery);
      res.writeHead(answer(delivery)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { deliveries, port, url: (path) => `http://127.0.0.1:${port}${path}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
