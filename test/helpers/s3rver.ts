import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, Socket, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/**
 * A real S3 server for tests: s3rver on 127.0.0.1:0 with its own temporary directory and one
 * bucket. s3rver 3.7 lacks ListMultipartUploads and AbortMultipartUpload; this helper adds both,
 * over s3rver's own directory of unfinished uploads, so a test can see what an upload left behind.
 */
export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  /** s3rver's fixed account. */
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  /** What `s3Storage()` needs to reach it (path style, as S3-compatible servers want). */
  readonly connection: { endpoint: string; region: string; forcePathStyle: true; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** A client of the test's own, to look into the bucket. */
  readonly client: S3Client;
  /** Every request s3rver answered: `handled` with `{ method, path, query, status }`, after the fact. */
  readonly requests: EventEmitter<{ handled: [HandledRequest] }>;
  /** Keys in the bucket under `prefix`. */
  keys(prefix?: string): Promise<string[]>;
  /** Keys of unfinished multipart uploads under `prefix`, as ListMultipartUploads lists them. */
  uploads(prefix?: string): Promise<string[]>;
  /** Upload ids s3rver holds parts for, read from its directory. */
  uploadDirectories(): Promise<string[]>;
  close(): Promise<void>;
}

export interface HandledRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
}

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  body: unknown;
  type: string;
}
type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;
interface S3rverInstance {
  middleware: Middleware[];
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const xml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startS3rver(bucket = 'captures'): Promise<TestS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'capture-engine-s3rver-'));
  const uploadsDir = path.join(directory, bucket, '._S3rver_uploads');
  const requests = new EventEmitter<{ handled: [HandledRequest] }>();
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });

  const listUploads = async (prefix: string): Promise<{ key: string; id: string; initiated: Date }[]> => {
    const ids = await readdir(uploadsDir).catch(() => [] as string[]);
    const uploads = await Promise.all(
      ids.map(async (id) => {
        const keyFile = path.join(uploadsDir, id, 'key');
        const [key, info] = await Promise.all([readFile(keyFile, 'utf8'), stat(keyFile)]);
        return { key, id, initiated: info.mtime };
      }),
    );
    return uploads.filter((upload) => upload.key.startsWith(prefix));
  };
  const multipart: Middleware = async (ctx, next) => {
    const [, pathBucket, ...rest] = ctx.path.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (pathBucket === bucket && ctx.method === 'GET' && key === '' && 'uploads' in ctx.query) {
      const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
      const uploads = await listUploads(prefix);
      ctx.type = 'application/xml';
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${xml(bucket)}</Bucket><Prefix>${xml(prefix)}</Prefix><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>${uploads
        .map((upload) => `<Upload><Key>${xml(upload.key)}</Key><UploadId>${xml(upload.id)}</UploadId><Initiated>${upload.initiated.toISOString()}</Initiated></Upload>`)
        .join('')}</ListMultipartUploadsResult>`;
      return;
    }
    if (pathBucket === bucket && ctx.method === 'DELETE' && key !== '' && typeof ctx.query.uploadId === 'string') {
      const uploadDir = path.join(uploadsDir, path.basename(ctx.query.uploadId));
      if (!(await stat(uploadDir).catch(() => undefined))) {
        ctx.status = 404;
        ctx.type = 'application/xml';
        ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
        return;
      }
      await rm(uploadDir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    await next();
  };
  const observe: Middleware = async (ctx, next) => {
    try {
      await next();
    } finally {
      requests.emit('handled', { method: ctx.method, path: ctx.path, query: { ...ctx.query }, status: ctx.status });
    }
  };
  // Before s3rver's router (its last middleware): observe everything, answer what it lacks.
  server.middleware.splice(server.middleware.length - 1, 0, observe, multipart);

  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    credentials: CREDENTIALS,
    connection: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS },
    client,
    requests,
    keys: async (prefix = '') => {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined }));
      return (page.Contents ?? []).map((object) => object.Key ?? '').sort();
    },
    uploads: async (prefix = '') => {
      const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix || undefined }));
      return (page.Uploads ?? []).map((upload) => upload.Key ?? '').sort();
    },
    uploadDirectories: async () => (await readdir(uploadsDir).catch(() => [] as string[])).sort(),
    close: async () => {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP relay in front of a server, to take it down and bring it back: while down, connections are
 * refused (nothing listens on the port) and open ones are cut.
 */
export interface Relay {
  readonly endpoint: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<Relay> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const relay = createServer((socket) => {
      const upstream = new Socket();
      sockets.add(socket).add(upstream);
      const forget = (): void => {
        socket.destroy();
        upstream.destroy();
        sockets.delete(socket);
        sockets.delete(upstream);
      };
      socket.on('error', forget).on('close', forget);
      upstream.on('error', forget).on('close', forget);
      upstream.connect(Number(targetPort), hostname, () => socket.pipe(upstream).pipe(socket));
    });
    await new Promise<void>((resolve, reject) => relay.once('error', reject).listen(port, '127.0.0.1', resolve));
    port = (relay.address() as { port: number }).port;
    server = relay;
  };
  const stop = async (): Promise<void> => {
    const relay = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (relay) await new Promise<void>((resolve) => relay.close(() => resolve()));
  };
  await listen();
  return { endpoint: `http://127.0.0.1:${port}`, down: stop, up: listen, close: stop };
}
