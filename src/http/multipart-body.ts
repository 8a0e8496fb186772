import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { finished, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Busboy from 'busboy';
import { captureErrors } from '../core/errors/factories.js';
import { lazyRequire } from '../core/loading/lazy-require.js';
import { mimeTypes } from '../core/document/mime-types.js';
import { CaptureError } from '../core/errors/catalogue.js';
import type { HttpRequest } from './http-types.js';
import { payloadTooLarge } from './http-errors.js';
import { addParam, type ParamBag } from './request-body.js';
import { documentPath as documentPathOf } from '../core/schema/document-params.js';

/** How much a `multipart/form-data` capture may upload: apart from the limit of other bodies. */
export interface UploadLimits {
  /** Largest file, and largest text field (an `html` or `markdown` field). @default 10485760 (10 MiB) */
  fileBytes: number;
  /** Largest whole body. @default 52428800 (50 MiB) */
  totalBytes: number;
  /** Most files in one request. @default 100 */
  files: number;
}

export const UPLOAD_DEFAULTS: UploadLimits = Object.freeze({ fileBytes: 10 * 1024 * 1024, totalBytes: 50 * 1024 * 1024, files: 100 });

/** Loaded at the first upload. */
const busboy = lazyRequire<typeof Busboy>('busboy');

/** Fields besides files (capture parameters); far more than the schema has. */
const MOST_FIELDS = 500;

/** The files of an upload, on disk: by their path in the document, the temporary file holding them. */
export interface UploadedFiles {
  readonly paths: ReadonlyMap<string, string>;
  /** Removes the files; once the capture that serves them is over. */
  dispose(): Promise<void>;
}

/**
 * Reads a multipart body as it streams in (busboy): its fields are parameters, its files written
 * to temporary files as they arrive, never whole into memory. In the parameters each file stands
 * as its name and its digest (what cache keys and idempotency fingerprints see); `uploads` gives
 * the engine its bytes. Over a limit it is 413; what arrives after a file or field over its limit
 * is read and dropped, so the client reads the answer, up to the whole body's limit, past which
 * reading stops. A refused body leaves no file behind.
 */
export async function readMultipartParams(request: HttpRequest, limits: UploadLimits): Promise<{ params: ParamBag; uploads: UploadedFiles }> {
  const stream = request.stream;
  if (request.bodyTooLarge || !stream) throw payloadTooLarge(limits.totalBytes);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'capture-upload-'));
  const paths = new Map<string, string>();
  const uploads: UploadedFiles = { paths, dispose: () => rm(dir, { recursive: true, force: true }) };
  try {
    return { params: await readInto(stream, request, limits, dir, paths), uploads };
  } catch (error) {
    await uploads.dispose();
    throw error;
  }
}

function readInto(stream: Readable, request: HttpRequest, limits: UploadLimits, dir: string, paths: Map<string, string>): Promise<ParamBag> {
  return new Promise((resolve, reject) => {
    const bag = Object.create(null) as ParamBag;
    // In the order they were sent, whichever is written first.
    const files: ({ name: string; content: string; type?: string; onDisk: string } | undefined)[] = [];
    const writing: Promise<unknown>[] = [];
    let refusal: CaptureError | undefined;
    let total = 0;
    let parser: Busboy.Busboy;
    try {
      parser = busboy()({
        headers: request.headers as IncomingHttpHeaders,
        preservePath: true,
        limits: { fileSize: limits.fileBytes, fieldSize: limits.fileBytes, files: limits.files, fields: MOST_FIELDS },
      });
    } catch (error) {
      reject(captureErrors.invalidParameter('body', `Unreadable multipart body: ${error instanceof Error ? error.message : String(error)}`, 'multipart/form-data with a boundary'));
      return;
    }
    const refuse = (error: CaptureError): void => {
      refusal ??= error;
    };
    const stop = (error: CaptureError): void => {
      stream.unpipe(parser);
      stream.off('data', count);
      reject(refusal ?? error);
    };
    const count = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limits.totalBytes) stop(payloadTooLarge(limits.totalBytes));
    };
    parser.on('file', (field, file, info) => {
      const name = info.filename ?? field;
      // Numbered, not named by the client: its names are paths of the document, not of this disk.
      const slot = files.push(undefined) - 1;
      const onDisk = path.join(dir, String(slot));
      const digest = createHash('sha256');
      file.on('data', (chunk: Buffer) => digest.update(chunk));
      file.on('limit', () => refuse(tooLarge(`File '${name}'`, limits.fileBytes)));
      writing.push(
        pipeline(file, createWriteStream(onDisk)).then(
          () => {
            if (refusal !== undefined) return;
            // A type from the name is more reliable than what clients send (often application/octet-stream).
            files[slot] = { name, content: `sha256-${digest.digest('base64url')}`, ...(mimeTypes().lookup(name) ? {} : { type: info.mimeType }), onDisk };
          },
          // A body that ends inside a file fails the file as well as the parser: the parser's error answers.
          () => undefined,
        ),
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) refuse(tooLarge(`Field '${name}'`, limits.fileBytes));
      addParam(bag, name, value);
    });
    parser.on('filesLimit', () => refuse(new CaptureError('PAYLOAD_TOO_LARGE', `At most ${limits.files} files may be uploaded`, { details: { limit: limits.files } })));
    parser.on('fieldsLimit', () => refuse(new CaptureError('PAYLOAD_TOO_LARGE', `At most ${MOST_FIELDS} fields may be sent`, { details: { limit: MOST_FIELDS } })));
    parser.on('error', (error: unknown) => stop(captureErrors.invalidParameter('body', `Unreadable multipart body: ${error instanceof Error ? error.message : String(error)}`, 'multipart/form-data')));
    parser.on('close', () => {
      void Promise.all(writing).then(() => {
        if (refusal) return reject(refusal);
        const written = files.filter((file) => file !== undefined);
        for (const { name, onDisk } of written) {
          const documentPath = documentPathOf(name);
          if (documentPath !== undefined) paths.set(documentPath, onDisk);
        }
        if (written.length > 0) bag.files = written.map(({ onDisk: _onDisk, ...file }) => file);
        resolve(bag);
      });
    });
    // A client that goes away mid-upload ends the read, not just the stream.
    finished(stream, (error) => {
      if (error) stop(captureErrors.invalidParameter('body', 'The upload ended before the body was complete', 'a complete multipart/form-data body'));
    });
    stream.on('data', count);
    stream.pipe(parser);
  });
}

function tooLarge(what: string, limit: number): CaptureError {
  return new CaptureError('PAYLOAD_TOO_LARGE', `${what} exceeds the upload limit of ${limit} bytes`, { details: { limit } });
}
