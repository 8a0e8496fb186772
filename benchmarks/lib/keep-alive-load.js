// A load generator for large binary answers: `connections` kept-alive sockets, each sending one
// GET after another for `durationMs`. autocannon scans every body byte in JavaScript, which caps
// it at a few hundred answers/s for 100 KB of random bytes (a PNG); here only the headers are
// parsed and the body is skipped by its Content-Length.
//
//   const { rps, p50, p99, statuses } = await keepAliveLoad({ port, path, connections: 10, durationMs: 10_000 });

import net from 'node:net';
import { percentile } from './stats.js';

const HEADER_END = Buffer.from('\r\n\r\n');

function oneConnection({ port, path, headers, until }, latencies, statuses) {
  return new Promise((resolve, reject) => {
    const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let bodyLeft = -1;
    let started = 0;
    const send = () => {
      if (performance.now() >= until) return void socket.end(resolve);
      started = performance.now();
      socket.write(request);
    };
    socket.once('connect', send);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      let data = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      pending = Buffer.alloc(0);
      while (data.length > 0) {
        if (bodyLeft < 0) {
          const end = data.indexOf(HEADER_END);
          if (end < 0) return void (pending = data);
          const head = data.subarray(0, end).toString('latin1');
          const status = head.slice(9, 12);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          bodyLeft = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          data = data.subarray(end + HEADER_END.length);
        }
        const taken = Math.min(bodyLeft, data.length);
        bodyLeft -= taken;
        data = data.subarray(taken);
        if (bodyLeft === 0) {
          bodyLeft = -1;
          latencies.push(performance.now() - started);
          send();
        }
      }
    });
  });
}

/** Answers per second, latency percentiles in ms, and the count of each status seen. */
export async function keepAliveLoad({ port, path, headers = {}, connections = 10, durationMs = 10_000 }) {
  const latencies = [];
  const statuses = new Map();
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(Array.from({ length: connections }, () => oneConnection({ port, path, headers, until }, latencies, statuses)));
  const seconds = (performance.now() - started) / 1000;
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses: Object.fromEntries(statuses) };
}
