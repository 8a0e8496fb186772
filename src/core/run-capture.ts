import { rm } from 'node:fs/promises';
import { PHASES, type CaptureContext, type MergedPart, type Phase } from './plugin-api.js';
import type { RunOutcome } from './capture-result.js';
import type { PhaseTimings } from './phases.js';
import type { CaptureParams } from './schema/capture-params.js';
import type { Deadline } from './deadline.js';
import { abortable, settlesWithin, throwIfAborted } from './deadline.js';
import { CaptureState, CONTEXT_ATTACHMENT } from './capture-state.js';
import { BOT_CHALLENGE } from './bot-challenge.js';
import type { Pipeline } from './pipeline.js';
import type { BrowserLease, CaptureObserver } from './ports.js';
import type { Logger } from './telemetry/logger.js';
import { captureErrors } from './errors/factories.js';
import { FORMATS } from './schema/formats.js';
import type { CaptureDocument, DocumentAsset } from './document/capture-document.js';
import { inSpan, type Context } from './telemetry/tracing.js';
import { countedFrames, tellProgress, type ProgressListener } from './progress.js';
import { runHook, type CaptureHooks } from './capture-hooks.js';

export interface CaptureRun {
  id: string;
  params: CaptureParams;
  document?: CaptureDocument;
  /** The files of `pdf_attachments` fetched by URL, by name. */
  attachments?: ReadonlyMap<string, DocumentAsset>;
  deadline: Deadline;
  lease: BrowserLease;
  pipeline: Pipeline;
  log: Logger;
  observer?: CaptureObserver;
  /** Filled with each phase's duration as it ends, so a capture that fails still says how far it got. */
  timings: PhaseTimings;
  /** The capture's trace: each phase is a span in it. */
  trace: Context;
  onProgress?: ProgressListener;
  /** The library caller's functions on the page, run before the navigate and capture phases. */
  hooks?: CaptureHooks;
  /** The phases run, in their order (a pdf_merge part stops before store; the merge itself starts at encode). */
  phases?: readonly Phase[];
  /** pdf_merge: the printed parts the merge joins. */
  merged?: readonly MergedPart[];
}


/**
 * Runs one capture through the phases in one browser context. Every stage gets the capture's
 * signal; cleanups registered with `ctx.defer()` run in reverse order whatever happened.
 */
export async function runCapture({ id, params, document, attachments, deadline, lease, pipeline, log, observer, timings, trace, onProgress, hooks = {}, phases = PHASES, merged }: CaptureRun): Promise<RunOutcome> {
  const cleanups: (() => unknown)[] = [];
  // A crashed renderer leaves pending calls hanging until the deadline; end this capture at once.
  const crashed = new AbortController();
  const onCrash = (): void => crashed.abort(captureErrors.rendererCrashed());
  lease.page.once('crash', onCrash);
  cleanups.push(() => lease.page.off('crash', onCrash));
  const signal = AbortSignal.any([deadline.signal, crashed.signal]);
  const ctx: CaptureContext = {
    id,
    params,
    target: document?.url ?? (params.url as string),
    document,
    attachments,
    merged,
    signal,
    remaining: deadline.remaining,
    budget: deadline.share,
    browserContext: lease.context,
    page: lease.page,
    cdp: lease.cdp,
    beginFrames: lease.beginFrames,
    state: initialState(lease.attachment),
    incomplete: [],
    waits: [],
    sidecars: [],
    defer: (cleanup) => cleanups.push(cleanup),
    warn: (message, error) => log.warn({ captureId: id, error: error === undefined ? undefined : String(error) }, message),
  };
  let handedOver = false;
  try {
    for (const phase of phases) {
      const started = performance.now();
      tellProgress(onProgress, { phase });
      // A video's frames are made as the encoder takes them: counting them is its progress.
      if (phase === 'encode' && onProgress && ctx.captured?.kind === 'frames') ctx.captured = countedFrames(ctx.captured, onProgress);
      try {
        await inSpan(
          `capture.${phase}`,
          { 'capture.phase': phase },
          async () => {
            await runHook(hooks, phase, ctx.page, signal);
            for (const stage of pipeline.stages(phase)) {
              if (stage.when && !stage.when(params)) continue;
              throwIfAborted(signal);
              await abortable(Promise.resolve(stage.run(ctx)), signal);
            }
          },
          { parent: trace },
        );
      } finally {
        const ms = performance.now() - started;
        timings[phase] = ms;
        tell(() => observer?.phaseEnded?.(phase, ms / 1000));
      }
    }
    if (!ctx.output) throw captureErrors.internal(`No stage produced a ${FORMATS[params.format].extension} output`);
    handedOver = true;
    return { output: ctx.output, stored: ctx.stored, metadata: ctx.metadata, incomplete: ctx.incomplete, timings, diagnostics: ctx.diagnostics, sidecars: ctx.sidecars };
  } finally {
    const challenge = ctx.state.get(BOT_CHALLENGE);
    if (challenge) tell(() => observer?.botChallenge?.(challenge.vendor, challenge.outcome));
    if (!handedOver && ctx.output?.path) cleanups.push(() => rm(ctx.output?.path as string, { force: true }));
    if (!(await runCleanups(cleanups.reverse(), ctx.warn))) lease.abandon();
  }
}

/**
 * How long a capture's cleanups may take together. A renderer stuck in JavaScript never answers
 * the protocol calls some cleanups make (stopping a screencast, detaching a session): without a
 * bound its capture would never answer, its context never close and a shutdown never end.
 */
const CLEANUP_BUDGET_MS = 3_000;

/**
 * Runs every cleanup in order, each awaited only while the shared budget lasts (a later one still
 * starts after an earlier one overran: removing files does not depend on the browser). Resolves
 * false when one overran.
 */
async function runCleanups(cleanups: (() => unknown)[], warn: CaptureContext['warn']): Promise<boolean> {
  const endsAt = Date.now() + CLEANUP_BUDGET_MS;
  let inTime = true;
  for (const cleanup of cleanups) {
    const finished = Promise.resolve()
      .then(cleanup)
      .then(
        () => true,
        (error: unknown) => {
          warn('cleanup failed', error);
          return true;
        },
      );
    // Every cleanup gets a moment even once the budget is spent, so the quick ones still finish.
    if (!(await settlesWithin(finished, Math.max(100, endsAt - Date.now())))) inTime = false;
  }
  if (!inTime) warn('a cleanup overran its bound; the context is reclaimed by force');
  return inTime;
}

/** An observer's failure must never touch a capture. */
function tell(notify: () => void): void {
  try {
    notify();
  } catch {
    // ignored on purpose: metrics are best effort
  }
}

function initialState(attachment: unknown): CaptureState {
  const state = new CaptureState();
  state.set(CONTEXT_ATTACHMENT, attachment);
  return state;
}
