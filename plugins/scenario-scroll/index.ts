import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { frameRateFor } from '../shared/frame-rate.js';
import { screencastVideo } from '../shared/screencast-video.js';
import { driveScroll, scrollEachFrame } from './scroll-driver.js';
import { frameByFrameVideo } from '../shared/begin-frame-video.js';
import { ScrollTimeline } from './timeline.js';

export interface ScrollScenarioOptions {
  /** Frames per second of the video. @default the engine's `fps` (30) */
  fps?: number;
  /** Length of one step's scroll animation in ms (the pause after it is `scroll_delay`). @default 800 */
  scrollAnimationMs?: number;
  /** JPEG quality of the frames handed to the encoder. @default 90 */
  frameQuality?: number;
  /** How late a frame may arrive after the moment it was drawn. @default 250 */
  latencyMs?: number;
}

/** The defaults of `ScrollScenarioOptions`. */
export const SCROLL_DEFAULTS = Object.freeze({ frameQuality: 90, scrollAnimationMs: 800, latencyMs: 250 });

/**
 * `scenario=scroll`: a smooth scrolling animation of the page, scrolled in real time along a
 * timeline of eased steps and recorded like `scenario=record`, so the page's own animations play at
 * the speed a person scrolling would see them. With `video_clock=frames` it is drawn in the engine's
 * video browser instead, each frame scrolled to its moment's position and drawn for that moment.
 */
export function scrollScenario(options: ScrollScenarioOptions = {}): CapturePlugin {
  let fps = options.fps;
  const quality = options.frameQuality ?? SCROLL_DEFAULTS.frameQuality;
  const latencyMs = options.latencyMs ?? SCROLL_DEFAULTS.latencyMs;
  const animationMs = options.scrollAnimationMs ?? SCROLL_DEFAULTS.scrollAnimationMs;
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
          const { scroll_by: scrollBy, scroll_delay: delayMs, scroll_easing: easing, scroll_start_delay: startDelayMs, scroll_back: back, duration } = ctx.params;
          const timeline = new ScrollTimeline({ fps: rate, scrollBy, delayMs, animationMs, easing, startDelayMs, backWithinMs: back ? duration * 1000 : undefined });
          // In the video browser (drawableFrameByFrame), each frame scrolled and drawn for its moment.
          ctx.captured = ctx.beginFrames
            ? await frameByFrameVideo(ctx, ctx.beginFrames, { fps: rate, quality, beforeFrame: scrollEachFrame(timeline, ctx.cdp) })
            : await screencastVideo(ctx, { fps: rate, quality, latencyMs, drive: (video) => driveScroll(timeline, rate, video) });
        },
      },
    ],
  };
}
