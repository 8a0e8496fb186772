import os from 'node:os';
import path from 'node:path';

/**
 * Every default of the engine in one visible object. Options, plugins, storage and the docs in
 * the types read these; no other place writes a default number down.
 */
export const DEFAULTS = Object.freeze({
  /**
   * Captures running at once: two per core. On the 2-core benchmark machine captures/s rose from
   * c=2 to c=4 and stayed flat to c=6, then fell at c=8 (benchmarks/results/cpu.md).
   */
  concurrency: 2 * os.availableParallelism(),
  /** Captures waiting before new ones get `503 SERVICE_BUSY`. */
  maxQueue: 32,
  /** How often stored files past their lifetime are swept, in ms. */
  storageSweepIntervalMs: 600_000,
  /** The viewport of a capture that names none, and of a context opened before its capture is known. */
  viewport: Object.freeze({ width: 1920, height: 1080 }),
  /**
   * Contexts opened ahead so that a capture need not wait for one: a warm context saves about
   * 40 ms of a capture at rest, and holds a renderer (90-110 MB on the headless shell) while it
   * waits. One: a burst opens its own contexts anyway (benchmarks/results/binaries.md).
   */
  warmContexts: 1,
  /** After this long without a capture the warm contexts are closed, and opened again by the next capture (0: kept). */
  warmIdleMs: 10_000,
  /** Relaunch Chromium after this many captures (0 = never). */
  recycleAfter: 1000,
  /** With `contextReuse`: captures one context serves before it is closed. */
  contextReuseMaxUses: 100,
  /** With `contextReuse`: how long a kept context waits for its next capture, in ms. */
  contextReuseIdleMs: 30_000,
  /**
   * A renderer holding more resident memory is killed (its capture fails with CAPTURE_FAILED,
   * reason renderer_crashed); V8's heap in each renderer is capped at half of it.
   */
  rendererMemoryMb: 2048,
  /** A browser whose processes together hold more is recycled once its running captures end. */
  browserMemoryMb: 4096,
  /** How often the pool reads its browsers' processes (memory, renderers busy with no capture). */
  watchdogIntervalMs: 1000,
  /** Time budget of a still capture in ms; videos add `duration × videoMsPerSecond`. */
  timeoutMs: 30_000,
  /** Extra budget per second of video: frames are rendered and encoded at about real time. */
  videoMsPerSecond: 2_000,
  /** Video frame rate. */
  fps: 30,
  /**
   * Memory a full-page image may take while it is put together (raw RGBA, 4 bytes a pixel): the
   * tallest page is this over 4 × the width (1 GiB: 139,810 px at 1920 px wide).
   */
  maxFullPageBytes: 1024 * 1024 * 1024,
  /** Pages of a PDF printed at once: Chromium's memory while printing grows with them (benchmarks/results/large-pdf.md). */
  pdfRangePages: 100,
  /** Lifetime of stored files in ms (24 h). */
  fileLifetimeMs: 24 * 3600_000,
  /** Directory for temporary files (videos being encoded, browser profiles). */
  tempDir: (): string => path.join(os.tmpdir(), 'capture-engine'),
});
