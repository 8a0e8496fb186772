import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { frameRateFor } from '../shared/frame-rate.js';
import { screencastVideo } from '../shared/screencast-video.js';

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
          ctx.captured = await screencastVideo(ctx, { fps: frameRateFor(ctx.params, fps), quality, latencyMs });
        },
      },
    ],
  };
}
