import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { CaptureParams } from './schema/capture-params.js';
import type { Logger } from './telemetry/logger.js';
import type { CaptureState } from './capture-state.js';
import type { CaptureDocument, DocumentAsset } from './document/capture-document.js';
import type { CaptureDiagnostics, Sidecar, WaitOutcome } from './diagnostics.js';
import type { MetadataAnswer } from './page-content.js';

export { stateKey, CaptureState, type StateKey } from './capture-state.js';

import type { Phase } from './phases.js';
import type { BeginFrameLoading } from './ports.js';

export { PHASES, type Phase } from './phases.js';

/** A still image produced by the capture phase, already encoded by Chromium or by the scenario. */
export interface ImageArtifact {
  kind: 'image';
  data: Buffer;
  /** The encoding of `data`; the encode phase converts it to the requested format when they differ. */
  encoding: 'png' | 'jpeg' | 'webp';
  width: number;
  height: number;
  /** Set when a full page was taller than the output allows and was cut at `height`. */
  clippedFrom?: number;
}

/**
 * Video frames produced lazily by the capture phase and consumed by the encode phase, so frames are
 * rendered only as fast as the encoder takes them and never all held in memory.
 */
export interface FrameStream {
  kind: 'frames';
  fps: number;
  width: number;
  height: number;
  /** Exactly this many frames are yielded: duration × fps. */
  frameCount: number;
  /** Encoding of every frame. */
  encoding: 'jpeg' | 'png';
  frames: AsyncIterable<Buffer>;
}

/** The finished file of a capture: in memory (images) or a temporary file (videos). */
export interface EncodedOutput {
  /** Its content type and extension are those of `FORMATS[format]`, unless `archive` says otherwise. */
  format: CaptureParams['format'];
  /** The format's files in an archive (a split PDF's ZIP). */
  archive?: 'zip';
  size: number;
  data?: Buffer;
  /** A temporary file owned by the capture; removed when the result is disposed. */
  path?: string;
  width?: number;
  height?: number;
  clippedFrom?: number;
}

/** A part of pdf_merge to be joined: printed (its bytes or temporary file), or an uploaded PDF. */
export interface MergedPart {
  /** Its place in pdf_merge, which errors name. */
  index: number;
  /** The title of its outline entry. */
  title: string;
  data?: Buffer;
  path?: string;
  /** An uploaded PDF joined as it is: its path in the document's files. */
  file?: string;
}

/** `metadata=true`: what the page says about itself, as `format=metadata` answers it, and `og_image` as it always had. */
export type PageMetadata = MetadataAnswer & {
  /** `open_graph.image`: the older field's name, kept. */
  og_image: string | null;
};

/** Where a capture's file went in storage, and its sidecars by name. */
export interface StoredOutput {
  key: string;
  url: string;
  sidecars?: Record<string, { key: string; url: string }>;
}

/** One state object per capture, handed to every stage. */
export interface CaptureContext {
  readonly id: string;
  readonly params: CaptureParams;
  /** The address the page is opened at: `params.url`, or a document's synthetic address. */
  readonly target: string;
  /** The document served instead of a URL (`html`, `markdown`, `files`). */
  readonly document?: CaptureDocument;
  /** The files `pdf_attachments` names by URL, fetched before the capture, by the name each takes in the PDF. */
  readonly attachments?: ReadonlyMap<string, DocumentAsset>;
  /** pdf_merge: its parts, printed in order before this run, for the stage that joins them. */
  readonly merged?: readonly MergedPart[];
  /** Aborts on the capture's deadline or a client disconnect; pass it to every wait. */
  readonly signal: AbortSignal;
  /** Milliseconds left in the capture's budget. */
  remaining(): number;
  /** A best-effort step's time: `wantedMs`, but at most a share of what is left (see `Deadline.share`). */
  budget(wantedMs: number): number;
  readonly browserContext: BrowserContext;
  readonly page: Page;
  /** A CDP session on `page` (raw screenshots, screencasts); closed with the context. */
  readonly cdp: CDPSession;
  /** Set when the page is in the video browser, which draws it only when sent frames (issue 53). */
  readonly beginFrames?: BeginFrameLoading;
  /** Response of the main document, once navigated (null for about:blank and the like); its headers as Playwright gives them. */
  response?: { status: number; url: string; headers?: Record<string, string> } | null;
  captured?: ImageArtifact | FrameStream;
  output?: EncodedOutput;
  /** What the page says about itself, when `metadata` was asked for. */
  metadata?: PageMetadata;
  /** The stored file's key and where it is served, when `store` ran; `sidecars`, theirs by name. */
  stored?: StoredOutput;
  /** With `best_effort`: the waits that ran out (their parameters), in order; the capture went on without them. */
  readonly incomplete: string[];
  /** How each wait for the page ended, in order (see `pageWait`). */
  readonly waits: WaitOutcome[];
  /** What `diagnostics=true` reports, once a stage has gathered it. */
  diagnostics?: CaptureDiagnostics;
  /** Files made beside the output, stored next to it. */
  readonly sidecars: Sidecar[];
  /** State stages share within this capture, under typed keys made with `stateKey<T>(name)`. */
  readonly state: CaptureState;
  /** Registers a cleanup; cleanups run in reverse order when the capture ends, whatever happened. */
  defer(cleanup: () => unknown): void;
  /** Logs without failing the capture (warnings a plugin wants an operator to see). */
  warn(message: string, error?: unknown): void;
}

export interface Stage {
  /** Unique within the plugin; shown in logs and errors. */
  name: string;
  phase: Phase;
  /** Per-request switch (e.g. `block_ads`). Stages of disabled plugins are never registered at all. */
  when?: (params: CaptureParams) => boolean;
  /**
   * Whether the stage, when it runs, leaves something on the browser context that outlives the page
   * (emulation, routes, init scripts, cookies it set, permissions). With `contextReuse` a capture
   * that runs such a stage gets a context of its own: the reset between two captures only navigates
   * away and clears cookies and storage. A stage that does not say is taken to leave state.
   * @default true
   */
  leavesContextState?: boolean | ((params: CaptureParams) => boolean);
  run(ctx: CaptureContext): Promise<void> | void;
}

/** The options plugins may read while they set themselves up (`PluginHost.options`). */
export interface ResolvedCoreOptions {
  readonly timeoutMs: number;
  readonly fps: number;
  readonly tempDir: string;
  readonly log: Logger;
}

/** Engine facilities a plugin may use while it sets itself up. */
export interface PluginHost {
  readonly options: ResolvedCoreOptions;
  readonly log: Logger;
}

export interface CapturePlugin {
  /** Unique name; `dependencies` refer to it. */
  name: string;
  /** Plugins that must be registered before this one (checked at `use()`). */
  dependencies?: string[];
  stages?: Stage[];
  /** Called once when the plugin is registered (load heavy engines lazily here or on first use). */
  setup?(host: PluginHost): Promise<void> | void;
  /** Called once when the engine closes. */
  close?(): Promise<void> | void;
}

