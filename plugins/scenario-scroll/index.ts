import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { frameRateFor } from '../shared/frame-rate.js';
import { screencastFor } from '../shared/screencast.js';
import { LatestFrame } from './latest-frame.js';
import { ScrollTimeline } from './timeline.js';
import { scrollFrames } from './scroll-frames.js';

export interface ScrollScenarioOptions {
  /** Frames per second of the video. @default the engine's `fps` (30) */
  fps?: number;
  /** Length of one step's scroll animation in ms (the pause after it is `scroll_delay`). @default 800 */
  scrollAnimationMs?: number;
  /** JPEG quality of the frames handed to the encoder. @default 90 */
  frameQuality?: number;
  /** Wait for a frame showing a new scroll position before falling back to screenshots. @default 3000 */
  frameTimeoutMs?: number;
}

/** The defaults of `ScrollScenarioOptions`. */
export const SCROLL_DEFAULTS = Object.freeze({ frameQuality: 90, scrollAnimationMs: 800, frameTimeoutMs: 3_000 });

/**
 * `scenario=scroll`: a smooth scrolling animation of the page, rendered by deterministic frame
 * stepping, so the video is exactly `duration` s at a constant rate however loaded the machine is.
 */
export function scrollScenario(options: ScrollScenarioOptions = {}): CapturePlugin {
  let fps = options.fps;
  const quality = options.frameQuality ?? SCROLL_DEFAULTS.frameQuality;
  return {
    name: 'scenario-scroll',
    setup(host) {
      fps ??= host.options.fps;
    },
    stages: [
      {
        name: 'scroll',
        phase: 'capture',
        leavesContextState: true,
        when: (params) => params.scenario === 'scroll',
        run: async (ctx) => {
          const rate = frameRateFor(ctx.params, fps);
          const { viewport_width: width, viewport_height: height, duration, scroll_by: scrollBy, scroll_delay: delayMs } = ctx.params;
          const latest = new LatestFrame();
          const { cdp, screencast } = await screencastFor(ctx, quality, (frame, ack) => latest.push(frame, ack));
          const frameCount = Math.round(duration * rate);
          const timeline = new ScrollTimeline({ fps: rate, scrollBy, delayMs, animationMs: options.scrollAnimationMs ?? SCROLL_DEFAULTS.scrollAnimationMs });
          async function* frames(): AsyncGenerator<Buffer> {
            try {
              yield* scrollFrames({
                cdp,
                latest,
                timeline,
                frameCount,
                fps: rate,
                quality,
                frameTimeoutMs: options.frameTimeoutMs ?? SCROLL_DEFAULTS.frameTimeoutMs,
                signal: ctx.signal,
                onFallback: () => ctx.warn('screencast stopped delivering frames; scrolling continues with screenshots'),
              });
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
