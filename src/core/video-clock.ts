import type { CaptureParams } from './schema/capture-params.js';
import { isVideoFormat } from './schema/formats.js';
import type { VideoClock } from './schema/video-params.js';
import { captureErrors } from './errors/factories.js';

/**
 * Whether a capture is a video the video browser draws frame by frame, each frame for its own moment
 * (issue 53): `record` and `scroll`, asked with `video_clock=frames` or by default on an engine whose
 * first clock is frames. `clocks` are the engine's, its default first: an engine on a remote browser
 * has only live, and refuses frames by name.
 */
export function drawnFrameByFrame(params: CaptureParams, clocks: readonly VideoClock[]): boolean {
  if (params.video_clock !== undefined && !clocks.includes(params.video_clock)) {
    throw captureErrors.invalidParameter('video_clock', `Invalid parameter 'video_clock': this service draws videos ${clocks.join(' or ')} only (its browser is remote)`, clocks.join(', '));
  }
  const video = (params.scenario === 'record' || params.scenario === 'scroll') && isVideoFormat(params.format);
  if (params.video_clock === undefined && clocks.includes('live') && params.actions?.some((step) => ACTS_ON_ELEMENT.has(step.action))) return false;
  return video && (params.video_clock ?? clocks[0]) === 'frames';
}

/**
 * Steps that act on an element through Playwright's input and actionability checks. Between frames,
 * with the page's clock paused, one of them now and then never returns (measured: click, hover,
 * press, select each hung 1 in 3 to 6 videos until the deadline; type, which runs the same checks,
 * did not in 3), so a journey with one is recorded live unless `video_clock=frames` is asked.
 */
const ACTS_ON_ELEMENT = new Set(['click', 'hover', 'type', 'press', 'select']);
