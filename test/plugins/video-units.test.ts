import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import type { CaptureContext, FrameStream } from '../../src/core/plugin-api.js';
import { ScrollTimeline } from '../../plugins/scenario-scroll/timeline.js';
import { FrameWindow } from '../../plugins/shared/frame-window.js';
import { constantRate } from '../../plugins/shared/constant-rate.js';
import type { ScreencastFrame } from '../../plugins/shared/screencast.js';
import { encodeVideo, findFfmpeg } from '../../plugins/encode-video/index.js';
import { crfFor, ffmpegArgs, outputSize } from '../../plugins/encode-video/ffmpeg-args.js';
import { ffmpegChildren, probe } from './video-fixtures.js';
import { betweenFrames, type VideoTime } from '../../plugins/shared/between-frames.js';
import { drawnFrameByFrame } from '../../src/core/video-clock.js';

/** The video plugins' logic without a browser: timeline, resampling, ffmpeg arguments and process handling. */

describe('scroll timeline', () => {
  // 10 fps, 500 ms animation + 500 ms pause: a step is 10 frames, 5 moving and 5 holding.
  const timeline = (fps = 10): ScrollTimeline => new ScrollTimeline({ fps, scrollBy: 1000, delayMs: 500, animationMs: 500 });
  /** Plays a timeline against a page whose scrollable height at frame i is `maxAt(i)`. */
  const play = (line: ScrollTimeline, frames: number, maxAt: (index: number) => number): number[] => {
    const positions: number[] = [];
    let current = 0;
    for (let index = 0; index < frames; index++) {
      current = Math.min(line.positionAt(index, current, maxAt(index)), maxAt(index));
      positions.push(current);
    }
    return positions;
  };

  it('scrolls each step with an eased animation, then holds for the delay', () => {
    const positions = play(timeline(), 20, () => 10_000);
    expect(positions.slice(0, 10)).toEqual([0, 32, 256, 744, 968, 1000, 1000, 1000, 1000, 1000]);
    expect(positions.slice(10, 20)).toEqual([1000, 1032, 1256, 1744, 1968, 2000, 2000, 2000, 2000, 2000]);
  });

  it('tells the step of every frame, where the page is measured again', () => {
    const line = timeline();
    expect([0, 1, 9, 10, 11, 20].map((index) => line.stepOf(index))).toEqual([0, 0, 0, 1, 1, 2]);
  });

  it('gives the same positions to a driver that skips frames, across steps too', () => {
    const all = play(timeline(), 30, () => 10_000);
    const line = timeline();
    expect([0, 2, 3, 13, 24, 29].map((index) => line.positionAt(index, 0, 10_000))).toEqual([0, 2, 3, 13, 24, 29].map((index) => all[index]));
  });

  it('stops at the bottom and holds there', () => {
    expect(play(timeline(), 30, () => 300).slice(4)).toEqual(Array.from({ length: 26 }, (_, i) => (i === 0 ? 290 : 300)));
  });

  it('goes on when the page grows while it scrolls', () => {
    const positions = play(timeline(), 20, (index) => (index < 10 ? 800 : 3000));
    expect(positions[9]).toBe(800);
    expect(positions[19]).toBe(1800);
  });

  it('follows the easing asked for, after holding the first position for the start delay', () => {
    const linear = new ScrollTimeline({ fps: 10, scrollBy: 1000, delayMs: 500, animationMs: 500, easing: 'linear' });
    expect(play(linear, 6, () => 10_000)).toEqual([0, 200, 400, 600, 800, 1000]);
    const late = new ScrollTimeline({ fps: 10, scrollBy: 1000, delayMs: 500, animationMs: 500, startDelayMs: 300 });
    expect([0, 2, 3].map((index) => late.stepOf(index))).toEqual([-1, -1, 0]);
    expect(play(late, 6, () => 10_000)).toEqual([0, 0, 0, 0, 32, 256]);
    const easeOut = play(new ScrollTimeline({ fps: 10, scrollBy: 1000, delayMs: 500, animationMs: 500, easing: 'ease_out' }), 2, () => 10_000);
    const easeIn = play(new ScrollTimeline({ fps: 10, scrollBy: 1000, delayMs: 500, animationMs: 500, easing: 'ease_in' }), 2, () => 10_000);
    expect(easeOut[1]).toBeGreaterThan(200);
    expect(easeIn[1]).toBeLessThan(200);
  });

  it('scrolls back to the top in the time left, from half the video or from the bottom', () => {
    // 4 s at 10 fps: steps start at 0, 1 and 2 s; the one at 2 s (half the video) returns.
    const long = play(new ScrollTimeline({ fps: 10, scrollBy: 1000, delayMs: 500, animationMs: 500, backWithinMs: 4000 }), 40, () => 10_000);
    expect(long[19]).toBe(2000);
    expect(long[39]).toBe(0);
    expect(long.slice(20).every((y, i, after) => i === 0 || y <= (after[i - 1] as number))).toBe(true);
    // A page 800 px tall is at its bottom after one step: the return starts at the next, at 1 s.
    const short = play(new ScrollTimeline({ fps: 10, scrollBy: 1000, delayMs: 500, animationMs: 500, backWithinMs: 4000 }), 40, () => 800);
    expect(short[9]).toBe(800);
    expect(short[10]).toBe(800);
    expect(short[15]).toBeLessThan(800);
    expect(short[39]).toBe(0);
  });

  it('never skips a step when the animation is shorter than a frame', () => {
    const line = new ScrollTimeline({ fps: 10, scrollBy: 100, delayMs: 0, animationMs: 1 });
    expect(play(line, 3, () => 10_000)).toEqual([0, 100, 200]);
  });
});

describe('constant rate from screencast timestamps', () => {
  const frame = (timestamp: number, label: string): ScreencastFrame => ({ base64: Buffer.from(label).toString('base64'), timestamp, receivedAt: timestamp, scrollY: 0 });
  const label = (shown: ScreencastFrame | undefined): string | undefined => shown && Buffer.from(shown.base64, 'base64').toString();
  /** A window sampling every 20 ms from its first frame, and the names of the frames it acknowledged. */
  const windowAt50Fps = () => {
    const window = new FrameWindow(50, { leadInMs: 0 });
    const acks: string[] = [];
    const push = (at: number, name: string): void => window.push(frame(at, name), () => acks.push(name));
    return { window, acks, push };
  };

  it('shows at each moment the frame drawn nearest to it, repeating and dropping frames', () => {
    // Moments every 20 ms from 0.
    const { window, acks, push } = windowAt50Fps();
    push(0, 'a');
    push(10, 'b');
    push(45, 'c');
    expect([0, 1, 2].map((moment) => label(window.take(moment)))).toEqual(['a', 'b', 'c']);
    push(50, 'd');
    push(55, 'e');
    push(75, 'f');
    // 60 is nearest to e (d, at 50, is shown by no moment); 80 and 100 to f.
    expect([3, 4, 5].map((moment) => label(window.take(moment)))).toEqual(['e', 'f', 'f']);
    expect(window.size).toBe(1);
    expect(acks.sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('starts the video a lead-in after the first frame drawn, when the screencast streams steadily', () => {
    const window = new FrameWindow(20, { leadInMs: 300 });
    expect(window.momentOf(0)).toBe(Number.POSITIVE_INFINITY);
    window.push(frame(100, 'first'), () => undefined);
    expect(window.momentOf(0)).toBe(400);
    window.push(frame(390, 'steady'), () => undefined);
    expect(label(window.take(0))).toBe('steady');
  });

  it('keeps the frame of every moment for an encoder that starts late, one frame per moment', () => {
    // Moments every 10 ms; frames every 5 ms for 300 ms before the encoder asks for the first.
    const window = new FrameWindow(100, { leadInMs: 0 });
    let acked = 0;
    for (let i = 0; i < 60; i++) window.push(frame(1000 + i * 5, String(i)), () => acked++);
    expect(window.size).toBeLessThanOrEqual(31);
    expect(acked).toBe(60);
    for (let moment = 0; moment < 30; moment++) expect(label(window.take(moment))).toBe(String(moment * 2));
  });

  it('holds back acknowledgements past its capacity, so memory stays bounded however far the encoder falls behind', () => {
    // A moment every ms: every frame is some moment's.
    const window = new FrameWindow(1000, { capacity: 3, leadInMs: 0 });
    const acked: number[] = [];
    for (let i = 0; i < 10; i++) window.push(frame(1000 + i, String(i)), () => acked.push(i));
    expect(acked).toEqual([0, 1, 2]);
    expect(label(window.take(5))).toBe('5');
    // Frames 0-5 only showed moments gone by; of 6-9, the capacity's worth are acknowledged.
    expect(window.size).toBe(4);
    expect(acked.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('never steps back in time: frames are kept in the order they were drawn, one older than a frame shown is dropped', () => {
    // Moments every 20 ms from the first frame, at 10.
    const { window, acks, push } = windowAt50Fps();
    push(10, 'a');
    push(50, 'c');
    push(30, 'b');
    expect(label(window.take(0))).toBe('a');
    expect(label(window.take(1))).toBe('b');
    push(20, 'older');
    expect(acks).toContain('older');
    expect(label(window.take(2))).toBe('c');
  });

  it('yields exactly frameCount frames', async () => {
    const window = new FrameWindow(50, { leadInMs: 0 });
    window.push(frame(Date.now() - 5, 'x'), () => undefined);
    const frames: Buffer[] = [];
    for await (const data of constantRate(window, { frameCount: 10, latencyMs: 20, signal: new AbortController().signal, fallback: async () => Buffer.from('none') })) frames.push(data);
    expect(frames).toHaveLength(10);
    expect(frames.every((data) => data.toString() === 'x')).toBe(true);
  });

  it('falls back to a still when the screencast sent nothing', async () => {
    const frames: string[] = [];
    for await (const data of constantRate(new FrameWindow(100, { leadInMs: 0 }), { frameCount: 3, latencyMs: 5, signal: new AbortController().signal, fallback: async () => Buffer.from('still') })) frames.push(data.toString());
    expect(frames).toEqual(['still', 'still', 'still']);
  });
});

describe('ffmpeg arguments', () => {
  it('maps quality 1..100 onto CRF, better quality lower CRF', () => {
    expect(crfFor('mp4', 100)).toBe(18);
    expect(crfFor('mp4', 1)).toBe(45);
    expect(crfFor('mp4', 90)).toBeLessThan(crfFor('mp4', 50));
    expect(crfFor('webm', 90)).toBe(32);
  });

  it('makes mp4 sides even by cropping and leaves webm as it is', () => {
    expect(outputSize('mp4', 641, 361)).toEqual({ width: 640, height: 360 });
    expect(outputSize('webm', 641, 361)).toEqual({ width: 641, height: 361 });
    const args = ffmpegArgs({ format: 'mp4', fps: 30, width: 641, height: 361, quality: 90, input: 'jpeg', output: 'out.mp4' });
    expect(args.join(' ')).toContain('-vf scale=641:361,crop=640:360:0:0,format=yuv420p');
    expect(args.join(' ')).toContain('-movflags +faststart');
    expect(args.join(' ')).toContain('-c:v libx264');
    expect(ffmpegArgs({ format: 'webm', fps: 24, width: 640, height: 360, quality: 90, input: 'jpeg', output: 'out.webm' }).join(' ')).toMatch(/-framerate 24 .*-c:v libvpx-vp9/);
  });
});

describe('finding ffmpeg', () => {
  it('prefers the option, then CAPTURE_FFMPEG_PATH, then PATH', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ffmpeg-find-'));
    try {
      const fake = path.join(dir, 'ffmpeg');
      await writeFile(fake, '#!/bin/sh\n');
      await chmod(fake, 0o755);
      expect(await findFfmpeg(fake, {})).toBe(fake);
      expect(await findFfmpeg(undefined, { CAPTURE_FFMPEG_PATH: fake })).toBe(fake);
      expect(await findFfmpeg(undefined, { PATH: dir })).toBe(fake);
      await expect(findFfmpeg(path.join(dir, 'nope'), {})).rejects.toThrow(/not found/);
      await expect(findFfmpeg(undefined, { PATH: path.join(dir, 'empty') })).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/No ffmpeg found/) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('encode-video stage', () => {
  let dir: string;
  let jpeg: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'encode-video-'));
    jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Runs the encode stage the way the engine does: cleanups in reverse order, whatever happened. */
  async function encode(frames: AsyncIterable<Buffer>, options: { ffmpegPath?: string; format?: 'mp4' | 'webm'; signal?: AbortSignal } = {}): Promise<CaptureContext> {
    const plugin = encodeVideo({ ffmpegPath: options.ffmpegPath, tempDir: dir });
    const stage = plugin.stages?.[0];
    if (!stage) throw new Error('no stage');
    const cleanups: (() => unknown)[] = [];
    const captured: FrameStream = { kind: 'frames', fps: 10, width: 64, height: 48, frameCount: 10, encoding: 'jpeg', frames };
    const ctx = {
      id: `t${Math.random().toString(36).slice(2)}`,
      params: parseCaptureParams({ url: 'http://example.com', format: options.format ?? 'mp4' }),
      signal: options.signal ?? new AbortController().signal,
      captured,
      state: new Map(),
      defer: (cleanup: () => unknown) => cleanups.push(cleanup),
      warn: () => undefined,
    } as unknown as CaptureContext;
    try {
      await stage.run(ctx);
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
    return ctx;
  }

  async function* repeat(count: number, delayMs = 0): AsyncGenerator<Buffer> {
    for (let i = 0; i < count; i++) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      yield jpeg;
    }
  }

  it('streams frames into a playable file that it hands over', async () => {
    for (const format of ['mp4', 'webm'] as const) {
      const ctx = await encode(repeat(10), { format });
      const output = ctx.output;
      expect(output).toMatchObject({ format, width: 64, height: 48 });
      const info = await probe(output?.path as string);
      expect(info).toMatchObject({ codec: format === 'mp4' ? 'h264' : 'vp9', frames: 10, pixFmt: 'yuv420p' });
      await rm(output?.path as string);
    }
  });

  it('reports an ffmpeg failure as CAPTURE_FAILED with its stderr, and leaves no file', async () => {
    const fake = path.join(dir, 'failing-ffmpeg');
    await writeFile(fake, '#!/bin/sh\necho "simulated encoder failure" >&2\nexit 3\n');
    await chmod(fake, 0o755);
    const error = await encode(repeat(50), { ffmpegPath: fake }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CaptureError);
    expect(error).toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'encoder' } });
    expect((error as Error).message).toMatch(/exited with code 3: simulated encoder failure/);
    expect((await readdir(dir)).filter((name) => /\.(mp4|webm)$/.test(name))).toEqual([]);
  });

  it('kills ffmpeg and removes the partial file on abort', async () => {
    const controller = new AbortController();
    const before = await ffmpegChildren();
    setTimeout(() => controller.abort(new CaptureError('CAPTURE_TIMEOUT', 'budget')), 300);
    const error = await encode(repeat(1000, 20), { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CAPTURE_TIMEOUT' });
    expect(await ffmpegChildren()).toBe(before);
    expect((await readdir(dir)).filter((name) => /\.(mp4|webm)$/.test(name))).toEqual([]);
  });
});

describe('video clock', () => {
  const video = (params: Record<string, string>) => parseCaptureParams({ url: 'https://example.com/', format: 'mp4', ...params });

  it('draws record and scroll frame by frame on an engine whose first clock is frames, live when asked', () => {
    expect(drawnFrameByFrame(video({ scenario: 'record' }), ['frames', 'live'])).toBe(true);
    expect(drawnFrameByFrame(video({ scenario: 'scroll', video_clock: 'live' }), ['frames', 'live'])).toBe(false);
    expect(drawnFrameByFrame(video({ video_clock: 'frames' }), ['live', 'frames'])).toBe(true);
    expect(drawnFrameByFrame(video({}), ['live', 'frames'])).toBe(false);
  });

  it('draws a journey frame by frame whatever its steps, elements acted on included', () => {
    const journey = (steps: unknown[]) => video({ scenario: 'record', actions: JSON.stringify(steps) });
    for (const step of [{ click: '#a' }, { hover: '#a' }, { action: 'type', selector: '#a', text: 'x' }, { press: 'Enter' }, { action: 'select', selector: '#s', option: 'b' }]) {
      expect(drawnFrameByFrame(journey([{ wait: 100 }, step]), ['frames', 'live'])).toBe(true);
    }
    expect(drawnFrameByFrame(journey([{ wait: 100 }, { wait_for: '#a' }, { scroll_to: 600 }]), ['frames', 'live'])).toBe(true);
  });

  it('refuses frames by name on an engine that draws live only (a remote browser)', () => {
    expect(drawnFrameByFrame(video({}), ['live'])).toBe(false);
    expect(() => drawnFrameByFrame(video({ video_clock: 'frames' }), ['live'])).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETER', details: expect.objectContaining({ param: 'video_clock' }) }));
  });

  it('runs a journey between frames, each step at the frame of its moment on the video\'s time', async () => {
    const done: string[] = [];
    const journey = async (time: VideoTime): Promise<void> => {
      done.push('click');
      await time.sleep(100);
      done.push('type');
      await time.sleep(10);
      done.push('press');
      await time.sleep(1000);
      done.push('never');
    };
    const beforeFrame = betweenFrames(journey, (index) => (index * 1000) / 30);
    const seen: string[][] = [];
    for (let index = 0; index < 6; index++) {
      await beforeFrame(index);
      seen.push([...done]);
    }
    // 100 ms is reached at frame 3 (100 ms), 110 ms at frame 4 (133 ms); the last step is past the video.
    expect(seen).toEqual([['click'], ['click'], ['click'], ['click', 'type'], ['click', 'type', 'press'], ['click', 'type', 'press']]);
  });

  it('adds up sleeps shorter than a frame: ten 10 ms sleeps end at the frame of 100 ms', async () => {
    let steps = 0;
    const beforeFrame = betweenFrames(async (time) => {
      for (let step = 0; step < 10; step++) {
        await time.sleep(10);
        steps++;
      }
    }, (index) => (index * 1000) / 30);
    const seen: number[] = [];
    for (let index = 0; index < 5; index++) {
      await beforeFrame(index);
      seen.push(steps);
    }
    // Frames at 0, 33.3, 66.7, 100 and 133.3 ms.
    expect(seen).toEqual([0, 3, 6, 10, 10]);
  });

  it('fails the frame when a step fails', async () => {
    const beforeFrame = betweenFrames(async (time) => {
      await time.sleep(50);
      throw new Error('step 1 failed');
    }, (index) => index * 40);
    await beforeFrame(0);
    await expect(beforeFrame(1)).resolves.toBeUndefined();
    await expect(beforeFrame(2)).rejects.toThrow('step 1 failed');
  });
});
