import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { frameRateFor } from '../shared/frame-rate.js';
import { FrameWindow } from '../shared/frame-window.js';
import { constantRate } from './constant-rate.js';
import { captureViewport, screencastFor } from '../shared/screencast.js';

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
 * recorded with Chromium's screencast and resampled to exactly duration × fps frames.
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
          const rate = frameRateFor(ctx.params, fps);
          const { viewport_width: width, viewport_height: height, duration } = ctx.params;
          // Frames drawn while the encoder starts up are kept for it.
          const window = new FrameWindow(rate);
          const { cdp, screencast } = await screencastFor(ctx, quality, (frame, ack) => window.push(frame, ack));
          const frameCount = Math.round(duration * rate);
          async function* frames(): AsyncGenerator<Buffer> {
            try {
              yield* constantRate(window, { frameCount, latencyMs, signal: ctx.signal, fallback: () => captureViewport(cdp, quality) });
            } finally {
              await screencast.stop();
            }
          }
          ctx.captured = { kind: 'frames', fps: rate, width, height, frameCount, encoding: 'jpeg', frames: frames() };
        },
      },
    ],
  };
}
