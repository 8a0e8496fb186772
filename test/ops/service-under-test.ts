import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCaptureHttp, createNodeListener, type CaptureEngine, type CaptureHttp, type CaptureHttpOptions, type CaptureEngineOptions } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';

/** An engine and its HTTP service on bare node:http at 127.0.0.1:0, as `capture-engine serve` mounts them. */
export interface ServiceUnderTest {
  engine: CaptureEngine;
  http: CaptureHttp;
  origin: string;
  close(): Promise<void>;
}

export async function startService(engineOptions: CaptureEngineOptions, httpOptions: CaptureHttpOptions): Promise<ServiceUnderTest> {
  const engine = await createTestEngine(engineOptions);
  const http = createCaptureHttp(engine, httpOptions);
  const server: Server = createServer(createNodeListener(http));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    engine,
    http,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await engine.close();
    },
  };
}
