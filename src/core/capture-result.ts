import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { FORMATS, type CaptureFormat } from './schema/formats.js';
import type { EncodedOutput, PageMetadata, StoredOutput } from './plugin-api.js';
import type { PhaseTimings } from './phases.js';
import type { UploadOutcome } from './ports.js';
import type { CaptureDiagnostics, Sidecar } from './diagnostics.js';

/** What `engine.capture()` returns. Images live in memory; videos in a temporary file until disposed. */
export interface CaptureResult {
  /** Unguessable id (128 random bits, URL-safe). */
  id: string;
  format: CaptureFormat;
  contentType: string;
  extension: string;
  /** Bytes. */
  size: number;
  width?: number;
  height?: number;
  /** Height of the page before it was cut to the largest image allowed, when it was. */
  clippedFrom?: number;
  /** Where the stored file is served (only with `response_type: 'json'`). */
  url?: string;
  /** The stored file's key in the engine's storage (only with `response_type: 'json'`). */
  storageKey?: string;
  /** What the page says about itself (only with `metadata: true`). */
  page?: PageMetadata;
  /** With `best_effort`: the waits that ran out (their parameters); the capture is of the page as it was. */
  incomplete?: string[];
  /** Milliseconds the capture spent waiting for a browser (`queue`) and in each phase. */
  timings: PhaseTimings;
  /** With `diagnostics: true`: what the page did (console, requests, redirects, waits). */
  diagnostics?: CaptureDiagnostics;
  /** Files stored beside the output (`har`), by name: where each is served and its storage key. */
  sidecars?: Record<string, { key: string; url: string }>;
  /** The files taken beside the output (`outputs=`, `har`), stored or not: the result cache keeps them. */
  sidecarFiles?: Sidecar[];
  /** With `upload_url`: the file was PUT there; the storage's status and the tries it took. */
  upload?: UploadOutcome;
  /** The bytes, for images and what the page says (videos: use `stream()` or `buffer()`). */
  data?: Buffer;
  /** `format=markdown`, `html`, `text`, `aria` and the JSON ones: the output as text. */
  text?: string;
  /** The temporary file of a video, until `dispose()`. */
  path?: string;
  stream(): Readable;
  buffer(): Promise<Buffer>;
  /** Removes the temporary file of a video; harmless for images and when called twice. */
  dispose(): Promise<void>;
}

/** What a finished run hands over: the output, where it was stored, what the page said, how long each phase took. */
export interface RunOutcome {
  output: EncodedOutput;
  stored?: StoredOutput;
  metadata?: PageMetadata;
  incomplete: string[];
  timings: PhaseTimings;
  diagnostics?: CaptureDiagnostics;
  sidecars: Sidecar[];
}

const ZIP = { contentType: 'application/zip', extension: 'zip' };

/** The content type and extension of a capture's file: its format's, or an archive's. */
export function fileTypeOf(output: Pick<EncodedOutput, 'format' | 'archive'>): { contentType: string; extension: string } {
  const { contentType, extension } = output.archive === 'zip' ? ZIP : FORMATS[output.format];
  return { contentType, extension };
}

export function toCaptureResult(id: string, { output, stored, metadata, incomplete, timings, diagnostics, sidecars }: RunOutcome, onDispose: () => void): CaptureResult {
  const { data, path } = output;
  let disposed = false;
  return {
    id,
    format: output.format,
    ...fileTypeOf(output),
    size: output.size,
    width: output.width,
    height: output.height,
    clippedFrom: output.clippedFrom,
    url: stored?.url,
    storageKey: stored?.key,
    ...(metadata ? { page: metadata } : {}),
    ...(incomplete.length > 0 ? { incomplete } : {}),
    timings,
    ...(diagnostics ? { diagnostics } : {}),
    ...(stored?.sidecars ? { sidecars: stored.sidecars } : {}),
    ...(sidecars.length > 0 ? { sidecarFiles: sidecars } : {}),
    data,
    ...(FORMATS[output.format].kind === 'content' && data ? { text: data.toString('utf8') } : {}),
    path,
    stream: () => (data ? Readable.from([data]) : createReadStream(path as string)),
    buffer: async () => data ?? readFile(path as string),
    dispose: async () => {
      if (disposed) return;
      disposed = true;
      if (path) await rm(path, { force: true });
      onDispose();
    },
  };
}
