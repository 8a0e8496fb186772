import type { Readable } from 'node:stream';
import type { BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright-core';

/**
 * A page of a browser launched with begin-frame control (issue 53) is drawn on the wall clock while it
 * loads and settles, until a video takes its frames over.
 */
export interface BeginFrameLoading {
  /** Stops drawing the page on the wall clock; rejects when `signal` aborts first (a hung page). */
  stop(signal: AbortSignal): Promise<void>;
}

/** One browser context lent to one capture: isolated, with a page and a CDP session ready. */
export interface BrowserLease {
  readonly context: BrowserContext;
  readonly page: Page;
  /** A CDP session on `page`, opened ahead of time with the context. */
  readonly cdp: CDPSession;
  /** What `PreparedContext.attachment` carried for this context (e.g. its egress session). */
  readonly attachment: unknown;
  /** Set when the page draws only when sent frames (a video's browser): see `BeginFrameLoading`. */
  readonly beginFrames?: BeginFrameLoading;
  /**
   * Tells the pool that the capture could not clean up after itself (a cleanup overran its
   * bound): the context is reclaimed by force, its renderers killed if they do not close.
   */
  abandon(): void;
}

export interface PoolStats {
  running: number;
  queued: number;
  warm: number;
  /** Contexts kept after a capture for the next one with the same reuse key. */
  reusable: number;
  /** Open contexts, warm and reusable ones included. */
  contexts: number;
  connected: boolean;
  /** Browsers launched (or connected) since the pool started, the first included. */
  launches: number;
  /** A capture asked for now would be refused with SERVICE_BUSY: every slot and queue place is taken. */
  full: boolean;
  /** Renderers killed so far: busy while no capture ran, or over the memory ceiling. */
  renderersKilled: { busy: number; memory: number };
  /** Resident memory of the local browsers' processes at the last reading (0 when unknown). */
  browserMemoryBytes: number;
}

/**
 * Told what each capture does, for metrics; the engine never waits on it and ignores its errors.
 * The ops layer implements it (Prometheus), an application may too.
 */
export interface CaptureObserver {
  /** A phase of a capture ended (also when it failed), after `seconds`. */
  phaseEnded?(phase: string, seconds: number): void;
  /** A capture met a bot challenge or block page, and refused it or took it anyway (`on_bot_challenge`). */
  botChallenge?(vendor: string, outcome: 'rejected' | 'captured'): void;
}

/** Browser contexts for captures, bounded in number; the browser layer implements it. */
export interface ContextPool {
  start(): Promise<void>;
  /**
   * Runs `task` in a context once one is free (a fresh one unless the pool reuses contexts and
   * `wants.reuseKey` allows it); throws SERVICE_BUSY when the queue is full.
   * A context opened for this task starts at `wants.viewport`, so the capture need not resize it.
   */
  run<T>(signal: AbortSignal, task: (lease: BrowserLease) => Promise<T>, wants?: LeaseWants): Promise<T>;
  readonly stats: PoolStats;
  /** Refuses new work, lets running captures finish, closes every context and browser. */
  close(): Promise<void>;
}

/** A page's size in CSS px. */
export interface Viewport {
  width: number;
  height: number;
}

/** What a capture asks of the context it is lent. */
export interface LeaseWants {
  viewport?: Viewport;
  /**
   * Set only for a capture that leaves nothing on its context but what a reset clears: a pool that
   * reuses contexts may lend it one that served an earlier capture with the same key, and keep its
   * context for a later one.
   */
  reuseKey?: string;
  /** The proxy the context's connections leave through: such a context is opened for the capture and closed after it. */
  proxy?: OutboundProxy;
  /** Whose capture it is: free slots go round-robin between tenants with captures waiting. */
  tenant?: string;
  /** Most captures of this tenant holding a slot at once (absent or 0: no cap but the pool's). */
  maxConcurrent?: number;
  /** A video that may be drawn frame by frame: a pool with a video browser lends a context of it. */
  frameByFrame?: boolean;
}

/** A proxy a capture's connections leave through (`proxy`), as the egress guard checked it. */
export interface OutboundProxy {
  /** `http:`, `https:` or `socks5:`, with its port and any credentials. */
  readonly url: URL;
  /** The operator's own (a named proxy): dialled without the guard's address check. */
  readonly trusted: boolean;
}

/** Per-context options and resources made for every context (e.g. an egress proxy session). */
export interface PreparedContext {
  options: BrowserContextOptions;
  /** Handed back with the lease. */
  attachment?: unknown;
  /** Forgets what one capture left in the attachment, before its context serves another. */
  reset?(): void;
  dispose(): Promise<void>;
}

/** Why the egress guard did not carry a connection (`proxy`: the capture's own proxy refused it or could not be reached). */
export type EgressFailure = 'refused' | 'dns' | 'unreachable' | 'proxy';

/** The egress guard as the engine uses it; the egress layer implements it. */
export interface EgressGuard {
  /** Parses and checks a capture target; throws INVALID_PARAMETER or URL_NOT_ALLOWED. */
  checkTarget(raw: string): Promise<URL>;
  /**
   * The proxy `raw` names (an operator's named proxy) or is (a URL), its address checked unless it
   * is the operator's; throws INVALID_PARAMETER (`proxy`) or URL_NOT_ALLOWED.
   */
  checkProxy(raw: string): Promise<OutboundProxy>;
  /** Why the connection `url` needed was not carried in the context whose lease has `attachment`. */
  failureFor(attachment: unknown, url: string): EgressFailure | undefined;
  /** Set when the operator's URL allow or deny list is: whether they refuse `url` (every request of a page is checked). */
  refusesUrl?(url: string): boolean;
  /**
   * GETs a caller's file (`download_from`, or the parameter `param` names) through the guard, at most
   * `maxBytes`: its body and Content-Type; throws URL_NOT_ALLOWED, CAPTURE_FAILED or PAYLOAD_TOO_LARGE.
   */
  download?(url: string, options: { headers?: Readonly<Record<string, string>>; maxBytes: number; signal: AbortSignal; param?: string }): Promise<{ body: Buffer; type?: string }>;
  /** `robots_txt=respect`: resolves when the target's robots.txt lets the engine capture `url`; throws URL_NOT_ALLOWED (reason robots_txt) or SERVICE_BUSY. */
  checkRobots(url: URL): Promise<void>;
  /** Parses and checks an `upload_url` like a target (allowed addresses included); throws INVALID_PARAMETER or URL_NOT_ALLOWED. */
  checkUpload(raw: string): Promise<URL>;
  /** PUTs a finished file to a checked `upload_url`, with retries; throws UPLOAD_FAILED. */
  upload(url: URL, file: UploadFile, signal: AbortSignal): Promise<UploadOutcome>;
  close(): Promise<void>;
}

/** A file an upload sends: read afresh for every try. */
export interface UploadFile {
  stream(): Readable;
  size: number;
  contentType: string;
}

/** How an upload went: the storage's last status and the tries it took. */
export interface UploadOutcome {
  status: number;
  attempts: number;
}

/**
 * The header the egress guard marks the answers it writes itself with (a refused address, a
 * failed DNS lookup, an unreachable host), its value the reason. To the page such an answer is an
 * ordinary response; to the capture it is a resource that could not be loaded.
 */
export const EGRESS_REPLY_HEADER = 'X-Egress-Proxy';
