import { rm } from 'node:fs/promises';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { isBuilt, sharedStorageDir, startBuiltService, startBuiltWorker, type BuiltProcess, type BuiltService } from './built-service.js';
import { startRedis, type TestRedis } from './redis-server.js';

/**
 * The built service and a built worker on a real redis-server, with a PRO key, both exporting
 * their spans over OTLP/HTTP to a receiver that also takes the webhooks: what a deployment with a
 * collector looks like. `service` and `worker` are missing when nothing is built.
 */
export interface TracedWorld {
  fixtures: FixtureServer;
  receiver: WebhookReceiver;
  service: BuiltService;
  worker: BuiltProcess;
  stop(): Promise<void>;
}

export async function startTracedWorld({ key, name, logLevel }: { key: string; name: string; logLevel: 'info' | 'warn' }): Promise<TracedWorld> {
  const fixtures = await startFixtureServer();
  const receiver = await startWebhookReceiver();
  const redis: TestRedis = await startRedis();
  const { storageDir, tempDir } = await sharedStorageDir(`capture-${name}-`);
  const env = {
    TMPDIR: tempDir,
    CAPTURE_REDIS_URL: redis.url,
    CAPTURE_API_KEYS: `${key}:PRO`,
    CAPTURE_ALLOW_ADDRESSES: [new URL(fixtures.url('/')).port, receiver.port].map((port) => `127.0.0.1:${port}`).join(','),
    CAPTURE_STORAGE_DIR: storageDir,
    CAPTURE_WEBHOOK_SECRET: `${name}-webhook-secret`,
    CAPTURE_LOG_LEVEL: logLevel,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    OTEL_SERVICE_NAME: 'capture-engine-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const [service, worker] = isBuilt() ? await Promise.all([startBuiltService('node', env), startBuiltWorker(env)]) : [];
  return {
    fixtures,
    receiver,
    service: service as BuiltService,
    worker: worker as BuiltProcess,
    async stop() {
      await Promise.all([service?.stop(), worker?.stop()]);
      await receiver.close();
      await Promise.all([redis.stop(), fixtures.close()]);
      await rm(storageDir, { recursive: true, force: true });
    },
  };
}
