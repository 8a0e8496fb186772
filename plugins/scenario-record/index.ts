import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { frameRateFor } from '../shared/frame-rate.js';
import { screencastVideo, type DrivenVideo } from '../shared/screencast-video.js';
import { frameByFrameVideo } from '../shared/begin-frame-video.js';
import { runActions } from '../shared/run-actions.js';
import { betweenFrames } from '../shared/between-frames.js';

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
 * `actions` play during it, so the video shows a user journey. With `video_clock=frames` it is drawn
 * in the engine's video browser instead, each frame for its own moment, the steps between frames.
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
          const steps = ctx.params.actions ?? [];
          const rate = frameRateFor(ctx.params, fps);
          // In the video browser (video_clock=frames), frame by frame, the journey's steps between frames.
          if (ctx.beginFrames) {
            const journey = steps.length === 0 ? undefined : betweenFrames((time) => runActions(ctx, steps, ctx.signal, undefined, time), (index) => (index * 1000) / rate);
            ctx.captured = await frameByFrameVideo(ctx, ctx.beginFrames, { fps: rate, quality, beforeFrame: journey });
            return;
          }
          // The journey starts at the video's first moment; steps still running when it ends are stopped.
          const drive = steps.length === 0 ? undefined : ({ window, signal }: DrivenVideo) => runActions(ctx, steps, signal, () => window.started(signal));
          ctx.captured = await screencastVideo(ctx, { fps: rate, quality, latencyMs, drive });
        },
      },
    ],
  };
}
