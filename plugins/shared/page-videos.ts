import type { CDPSession } from 'playwright-core';
import { evaluateExpression, evaluateInPage } from './evaluate-in-page.js';

/** The `<video>` elements of a page, in document order, driven on a video's clock; those after them play as they do. */
const DRIVEN_VIDEOS = 16;

/** Wall time a frame waits for its videos' seeks, after which those still seeking are left to play as they do. */
const SEEK_WAIT_MS = 1000;

/** The page's clock, advanced in steps too short to show between two frames while seeks complete. */
export interface SeekClock {
  /** Lets the page run 1 µs further: its media tasks (a seek's end) run only while its clock runs. */
  nudge(): Promise<void>;
}

/**
 * Shows each playing `<video>` of a page drawn frame by frame at its moment on the video's clock
 * (issue 53). Chromium plays a video without sound on the page's clock, virtual time included, but
 * one with a sound track on its audio output's, which virtual time does not drive: measured on a
 * 2 s test video, 37 of its 60 frames played in 60 frames of the video. So before each frame, each
 * playing element is seeked to where it stands on the video's clock (start + elapsed × rate), as
 * Remotion renders its `<Video>` (set `currentTime` each frame, wait for the seek), and the page's
 * clock runs by µs until the seeks end, for their end is a task of the page. The element's own
 * playback is held at rate 0 meanwhile: playing on between frames, it ran into its end and looped
 * by itself, and the pictures drawn after that lagged their seeks by a frame.
 *
 * A seek decodes from the keyframe before its moment: with a keyframe every 250 frames, a 720p
 * video cost about 140 ms a frame. So seeking has `budgetMs` of the wall clock in all, as the
 * page's fetches have theirs; past it, the elements are left to play as they do.
 */
export class PageVideos {
  private spent = false;
  /** Whether a video may be playing: looked at before each frame only then (a look is a round trip, 1-4 ms). */
  private watching = true;

  constructor(
    private readonly cdp: CDPSession,
    private readonly clock: SeekClock,
    private budgetMs: number,
  ) {}

  /**
   * From now on, a video of the page that starts playing (in this document or the next) tells this
   * before the clock's advance that played it has ended: the page's events reach the engine in order.
   * Until one does, the frames of a page without a playing video cost no look at its videos.
   */
  async watch(): Promise<void> {
    this.cdp.on('Runtime.bindingCalled', ({ name }: { name: string }) => {
      if (name === PLAY_BINDING) this.watching = true;
    });
    await this.cdp.send('Runtime.addBinding', { name: PLAY_BINDING });
    const source = `(${reportPlays.toString()})(${JSON.stringify(PLAY_BINDING)})`;
    await this.cdp.send('Page.addScriptToEvaluateOnNewDocument', { source });
    await this.cdp.send('Runtime.evaluate', { expression: source });
  }

  /**
   * Seeks the page's playing videos to this frame's moment. Returns false when one is left to play
   * as it does from now on: its seek outlasted SEEK_WAIT_MS or ended elsewhere (a resource not
   * served in ranges: Chromium went back to its start), or the budget ran out (all of them).
   */
  async seek(): Promise<boolean> {
    if (this.spent || !this.watching) return true;
    const started = performance.now();
    const { sent, seeking: first, playing } = await evaluateInPage(this.cdp, seekVideos, DRIVEN_VIDEOS);
    this.watching = playing > 0;
    if (sent === 0) return true;
    // What the last look saw: none astray once every seek has ended where it was sent needs no look more.
    let look = { seeking: first, astray: -1 };
    while (look.seeking > 0 && performance.now() - started < Math.min(SEEK_WAIT_MS, this.budgetMs)) {
      await this.clock.nudge();
      look = await evaluateExpression<{ seeking: number; astray: number }>(this.cdp, SEEKS_LOOK);
    }
    this.budgetMs -= performance.now() - started;
    this.spent = this.budgetMs <= 0;
    if (!this.spent && look.seeking === 0 && look.astray === 0) return true;
    return (await evaluateExpression<number>(this.cdp, `(${leaveAstray.toString()})(${drivenVideos.toString()}, ${astray.toString()}, ${this.spent})`)) === 0;
  }
}

/** A driven element, as the page keeps it. */
interface VideoAnchor {
  /** Its playback rate as the page set it; Chromium's is 0 while it is held. */
  rate: number;
  /** Whether it is held: its own playback stopped (rate 0), its position set before each frame. */
  held: boolean;
  /** What its position is reckoned from: its media time (s) at `at`, the page's `performance.now()`; none while paused or once the page seeks it. */
  from?: { media: number; at: number };
  /** Where the last seek of ours sent it. */
  sentTo?: number;
  /** Its seek did not end in time, or ended elsewhere: it is left to play as it does. */
  left?: boolean;
}

/** The page's binding through which a video that starts playing says so. */
const PLAY_BINDING = '__captureEngineVideoPlays';

/**
 * In the page: calls `binding` when a video of the document starts playing (media events do not
 * bubble; a listener of the capture phase hears them), once a frame at most: each call is an event
 * the engine's process handles, and a page playing and pausing in a loop, or calling the binding
 * itself, would flood the process every capture shares. One call keeps the page's videos looked at
 * until a look finds none playing, which comes before a frame. The binding is taken off `window`
 * before the page's scripts run, and events the page dispatches itself are not heard.
 */
function reportPlays(binding: string): void {
  const page = window as unknown as Record<string, ((payload: string) => void) | undefined>;
  const report = page[binding];
  delete page[binding];
  let reported = false;
  document.addEventListener(
    'play',
    (event) => {
      if (reported || !event.isTrusted || !(event.target instanceof HTMLVideoElement)) return;
      reported = true;
      report?.('');
      requestAnimationFrame(() => void (reported = false));
    },
    true,
  );
}

/** In the page: seeks each playing driven video to its moment; returns how many it sent, how many are seeking and how many play (driven or not yet loaded). */
function seekVideos(max: number): { sent: number; seeking: number; playing: number } {
  const holder = window as unknown as Record<symbol, WeakMap<HTMLVideoElement, VideoAnchor> | undefined>;
  const anchors = (holder[Symbol.for('capture-engine.video-anchors')] ??= new WeakMap());
  const nativeRate = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'playbackRate')!;
  const nativeTime = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'currentTime')!;
  const now = performance.now();
  /** Where `anchor`'s element stands at `moment` on the page's clock. */
  const positionAt = (anchor: VideoAnchor, from: { media: number; at: number }, moment: number): number => from.media + ((moment - from.at) / 1000) * anchor.rate;
  /**
   * Adopts `video`: the page sees and sets its rate as ever, while Chromium's stays 0 once held, and
   * a seek of the page's (or a new source) is where the element goes on from, from the next frame.
   */
  const adopt = (video: HTMLVideoElement): VideoAnchor => {
    const anchor: VideoAnchor = { rate: video.playbackRate, held: false };
    Object.defineProperty(video, 'playbackRate', {
      configurable: true,
      get: () => anchor.rate,
      set: (rate: number) => {
        nativeRate.set!.call(video, rate);
        const moment = performance.now();
        if (anchor.from) anchor.from = { media: positionAt(anchor, anchor.from, moment), at: moment };
        anchor.rate = rate;
        if (anchor.held) nativeRate.set!.call(video, 0);
      },
    });
    Object.defineProperty(video, 'currentTime', {
      configurable: true,
      get: () => nativeTime.get!.call(video),
      set: (time: number) => {
        anchor.from = anchor.sentTo = undefined;
        nativeTime.set!.call(video, time);
      },
    });
    video.addEventListener('emptied', () => (anchor.from = anchor.sentTo = undefined));
    anchors.set(video, anchor);
    return anchor;
  };
  let sent = 0;
  let seeking = 0;
  let playing = 0;
  for (const video of Array.from(document.querySelectorAll('video')).slice(0, max)) {
    const anchor = anchors.get(video) ?? adopt(video);
    const { duration } = video;
    if (!anchor.left && !video.paused) playing++;
    if (anchor.left || video.paused || video.readyState < 1 || !Number.isFinite(duration) || video.seekable.length === 0) {
      anchor.from = undefined;
      continue;
    }
    if (!anchor.held) {
      // Its own playback, on the audio output's clock when it has sound, would move it between frames.
      anchor.held = true;
      nativeRate.set!.call(video, 0);
    }
    // Started or seeked by the page since the frame before: reckoned from here, within a frame of its moment.
    const from = (anchor.from ??= { media: video.currentTime, at: now });
    const position = positionAt(anchor, from, now);
    // A looped video sought past the end of its picture track (its sound may run on: the counter
    // test video's picture ends at 2.000 s, its duration is 2.008) starts over at 0 instead: a
    // moment in its last 30 ms is shown from 30 ms before the end, its last frame at any usual rate.
    const target = video.loop ? Math.min(position % duration, Math.max(0, duration - 0.03)) : Math.min(position, duration);
    nativeTime.set!.call(video, target);
    anchor.sentTo = target;
    sent++;
    if (video.seeking) seeking++;
  }
  return { sent, seeking, playing };
}

/** In the page: its driven elements, with what it keeps of them. */
function drivenVideos(): [HTMLVideoElement, VideoAnchor][] {
  const anchors = (window as unknown as Record<symbol, WeakMap<HTMLVideoElement, VideoAnchor> | undefined>)[Symbol.for('capture-engine.video-anchors')];
  return Array.from(document.querySelectorAll('video')).flatMap((video) => {
    const anchor = anchors?.get(video);
    return anchor && !anchor.left ? [[video, anchor] as [HTMLVideoElement, VideoAnchor]] : [];
  });
}

/** Whether a driven video's last seek has not ended where it was sent (a resource not served in ranges goes back to its start). */
function astray([video, anchor]: [HTMLVideoElement, VideoAnchor]): boolean {
  return anchor.sentTo !== undefined && (video.seeking || Math.abs(video.currentTime - anchor.sentTo) >= 1e-3);
}

/** In the page: how many driven videos are still seeking, and how many are astray. */
function seeksNow(driven: typeof drivenVideos, isAstray: typeof astray): { seeking: number; astray: number } {
  const videos = driven();
  return { seeking: videos.filter(([video]) => video.seeking).length, astray: videos.filter(isAstray).length };
}

const SEEKS_LOOK = `(${seeksNow.toString()})(${drivenVideos.toString()}, ${astray.toString()})`;

/** In the page: leaves the driven videos still seeking, or whose seek ended elsewhere (with `all`, every one), to play as they do; returns how many. */
function leaveAstray(driven: typeof drivenVideos, isAstray: typeof astray, all: boolean): number {
  let left = 0;
  for (const [video, anchor] of driven()) {
    if (!all && !isAstray([video, anchor])) continue;
    anchor.left = true;
    anchor.held = false;
    video.playbackRate = anchor.rate;
    left++;
  }
  return left;
}
