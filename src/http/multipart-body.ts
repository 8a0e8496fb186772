import type { IncomingHttpHeaders } from 'node:http';
import { finished } from 'node:stream';
import type Busboy from 'busboy';
import { captureErrors } from '../core/errors/factories.js';
import { lazyRequire } from '../core/lazy-require.js';
import { mimeTypes } from '../core/document/mime-types.js';
import { CaptureError } from '../core/errors/catalogue.js';
import type { HttpRequest } from './http-types.js';
import { payloadTooLarge } from './http-errors.js';
import { addParam, type ParamBag } from './request-body.js';

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

/**
 * Reads a multipart body as it streams in (busboy): its fields are parameters, its files the
 * document's `files`, named by their paths (`images/logo.png`). Over a limit it is 413; what
 * arrives after a file or field over its limit is read and dropped, so the client reads the
 * answer, up to the whole body's limit, past which reading stops.
 */
export function readMultipartParams(request: HttpRequest, limits: UploadLimits): Promise<ParamBag> {
  const stream = request.stream;
  if (request.bodyTooLarge || !stream) return Promise.reject(payloadTooLarge(limits.totalBytes));
  return new Promise((resolve, reject) => {
    const bag = Object.create(null) as ParamBag;
    const files: { name: string; content: Buffer; type?: string }[] = [];
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
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on('limit', () => refuse(tooLarge(`File '${name}'`, limits.fileBytes)));
      // A body that ends inside a file fails the file as well as the parser: the parser's error answers.
      file.on('error', () => undefined);
      file.on('end', () => {
        // A type from the name is more reliable than what clients send (often application/octet-stream).
        if (refusal === undefined) files.push({ name, content: Buffer.concat(chunks), ...(mimeTypes().lookup(name) ? {} : { type: info.mimeType }) });
      });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) refuse(tooLarge(`Field '${name}'`, limits.fileBytes));
      addParam(bag, name, value);
    });
    parser.on('filesLimit', () => refuse(new CaptureError('PAYLOAD_TOO_LARGE', `At most ${limits.files} files may be uploaded`, { details: { limit: limits.files } })));
    parser.on('fieldsLimit', () => refuse(new CaptureError('PAYLOAD_TOO_LARGE', `At most ${MOST_FIELDS} fields may be sent`, { details: { limit: MOST_FIELDS } })));
    parser.on('error', (error: unknown) => stop(captureErrors.invalidParameter('body', `Unreadable multipart body: ${error instanceof Error ? error.message : String(error)}`, 'multipart/form-data')));
    parser.on('close', () => {
      if (refusal) return reject(refusal);
      if (files.length > 0) bag.files = files;
      resolve(bag);
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
