import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { frameRateFor } from '../shared/frame-rate.js';
import { screencastVideo, type DrivenVideo } from '../shared/screencast-video.js';
import { frameByFrameVideo } from '../shared/begin-frame-video.js';
import { runActions } from '../shared/run-actions.js';

export interface RecordScenarioOptions {
  /** Frames per second of the video. @default the engine's `fps` (30) */
  fps?: number;
  /** JPEG quality of the frames handed to the encoder. @default 90 */
  frameQuality?: number;
  /** How late a frame may arrive after the moment it was drawn. @default 250 */
  latencyMs?: number;
}

/** The defaults of `RecordScenarioOptions`. */
export const RECORD_DEFAULTS = Object.freeze({ frameQuality: 90, latencyMs: 250 });

/**
 * `scenario=record`: the live page for `duration` seconds (CSS and JS animations, playing videos),
 * recorded with Chromium's screencast and resampled to exactly duration × fps frames. The steps of
 * `actions` play during it, so the video shows a user journey. An engine with `videoClock: 'frames'`
 * draws a record without actions in its video browser instead, each frame for its own moment.
 */
export function recordScenario(options: RecordScenarioOptions = {}): CapturePlugin {
  let fps = options.fps;
  const quality = options.frameQuality ?? RECORD_DEFAULTS.frameQuality;
  const latencyMs = options.latencyMs ?? RECORD_DEFAULTS.latencyMs;
  return {
    name: 'scenario-record',
    setup(host) {
      fps ??= host.options.fps;
    },
    stages: [
      {
        name: 'record',
        phase: 'capture',
        leavesContextState: true,
        when: (params) => params.scenario === 'record',
        run: async (ctx) => {
          // In the video browser (a record without actions: drawableFrameByFrame), frame by frame.
          if (ctx.beginFrames) {
            ctx.captured = await frameByFrameVideo(ctx, ctx.beginFrames, { fps: frameRateFor(ctx.params, fps), quality });
            return;
          }
          const steps = ctx.params.actions ?? [];
          // The journey starts at the video's first moment; steps still running when it ends are stopped.
          const drive = steps.length === 0 ? undefined : ({ window, signal }: DrivenVideo) => runActions(ctx, steps, signal, () => window.started(signal));
          ctx.captured = await screencastVideo(ctx, { fps: frameRateFor(ctx.params, fps), quality, latencyMs, drive });
        },
      },
    ],
  };
}
