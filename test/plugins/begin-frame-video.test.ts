import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, chromiumArgs } from '../../src/browser/chromium-path.js';
import { BEGIN_FRAME_SWITCHES, pumpBeginFrames } from '../../src/browser/begin-frame-control.js';
import { beginFrameFrames } from '../../plugins/shared/begin-frame-video.js';
import { ffmpegArgs } from '../../plugins/encode-video/ffmpeg-args.js';
import { findFfmpeg } from '../../plugins/encode-video/find-ffmpeg.js';
import { startFfmpeg } from '../../plugins/encode-video/ffmpeg-process.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { clockPage } from '../../fixtures/clock-page/clock.js';
import { createDeadline } from '../../src/core/deadline.js';
import { clockDrift, clockReadings, probe, videoPath } from './video-fixtures.js';
import { createTestEngine } from '../helpers/engine.js';
import { ScrollTimeline } from '../../plugins/scenario-scroll/timeline.js';

/**
 * Videos drawn frame by frame by a begin-frame browser (issue 53): frame i shows the page at the time
 * of the first plus i / fps, read back from the pixels of every frame of the clock page.
 */

const run = promisify(execFile);
const FPS = 30;
let browser: Browser;
let server: FixtureServer;
let dir: string;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: chromiumArgs(BEGIN_FRAME_SWITCHES) });
  server = await startFixtureServer({
    '/clock': (_req, res) => html(res, clockPage()),
    // How far the page is scrolled, drawn on every frame, on a page 20000 px tall.
    '/scrolled': (_req, res) => html(res, clockPage('20000px', { clock: 'scroll' })),
    // The clock read from Date, and a box that a setTimeout chain turns white and black at every
    // 100 ms of that clock (each step timed to the next, as the wall clock makes timers late while loading).
    '/timers': (_req, res) =>
      html(res, clockPage(undefined, { clock: 'date' }).replace('</body>', `<div id="box" style="position:fixed;top:60px;left:0;width:40px;height:40px;background:#000"></div><script>
        const step = () => {
          const ms = Date.now() - start;
          box.style.background = Math.floor(ms / 100) % 2 ? '#fff' : '#000';
          setTimeout(step, 100 - (ms % 100));
        };
        step();
      </script></body>`)),
    // The main thread hangs on the tenth animation frame after loading (timers run on the wall clock,
    // far slower than the video's frames).
    '/hang': (_req, res) =>
      html(res, '<body><script>addEventListener("load", () => { let n = 0; const tick = () => { if (++n === 10) for (;;); requestAnimationFrame(tick); }; requestAnimationFrame(tick); })</script></body>'),
  });
  dir = await mkdtemp(path.join(tmpdir(), 'begin-frame-'));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A `seconds` long mp4 of `url` at `width`x`height`, drawn frame by frame. */
async function record(url: string, width: number, height: number, seconds: number, signal = createDeadline(60_000).signal): Promise<string> {
  const context = await browser.newContext({ viewport: { width, height } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const pump = pumpBeginFrames(cdp);
    await page.goto(url, { waitUntil: 'load' });
    await pump.stop(signal);
    const output = path.join(dir, `${width}x${height}-${seconds}.mp4`);
    const ffmpeg = startFfmpeg(await findFfmpeg(), ffmpegArgs({ format: 'mp4', fps: FPS, width, height, quality: 90, input: 'jpeg', output }), output, signal);
    try {
      await ffmpeg.encode(beginFrameFrames(cdp, { fps: FPS, frameCount: seconds * FPS, quality: 90, signal }));
    } finally {
      await ffmpeg.kill();
    }
    return output;
  } finally {
    await context.close();
  }
}

/** Whether the box of /timers is white, frame by frame. */
async function boxWhite(file: string, width: number, height: number): Promise<boolean[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { encoding: 'buffer', maxBuffer: 1 << 30 });
  const frames = Math.floor(stdout.length / (width * height));
  return Array.from({ length: frames }, (_, i) => stdout[i * width * height + 80 * width + 20]! > 128);
}

/** How far each frame's clock is from the first's plus i / fps (ms). */
async function offsets(file: string, width: number, height: number): Promise<number[]> {
  const readings = await clockReadings(file, width, height, { fps: FPS });
  return readings.map((ms, i) => ms - readings[0]! - (i * 1000) / FPS);
}

describe('begin-frame video', () => {
  it('draws every frame of a 640x360 video for its own moment: no repeat, no drop, nothing late', async () => {
    const file = await record(server.url('/clock'), 640, 360, 3);
    expect(await probe(file)).toMatchObject({ frames: 90, width: 640, height: 360 });
    // The page reads its clock in whole ms.
    for (const offset of await offsets(file, 640, 360)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
    const { repeats, drops, backwards, unreadable } = clockDrift(await clockReadings(file, 640, 360, { fps: FPS }), FPS);
    expect({ repeats, drops, backwards, unreadable }).toEqual({ repeats: 0, drops: 0, backwards: 0, unreadable: 0 });
  });

  it('does the same at 1280x720, however long each frame takes to draw', async () => {
    const file = await record(server.url('/clock'), 1280, 720, 2);
    const info = await probe(file);
    expect(info.frames).toBe(60);
    expect(Math.abs(info.duration - 2)).toBeLessThanOrEqual(1 / FPS);
    for (const offset of await offsets(file, 1280, 720)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
  });

  it('runs Date and timers on the video\'s clock: a 100 ms setTimeout chain flips at its exact times', async () => {
    const file = await record(server.url('/timers'), 640, 360, 2);
    for (const offset of await offsets(file, 640, 360)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
    const clocks = await clockReadings(file, 640, 360, { fps: FPS });
    const white = await boxWhite(file, 640, 360);
    expect(white).toHaveLength(clocks.length);
    // The box shows the parity of the 100 ms steps passed when its timers fire on time (a frame on a
    // step's very moment may show either side of it).
    const shown = clocks.flatMap((ms, i) => (ms % 100 < 2 || ms % 100 > 98 ? [] : [{ ms, white: white[i], expected: Math.floor(ms / 100) % 2 === 1 }]));
    expect(shown.length).toBeGreaterThan(50);
    expect(shown.filter(({ white, expected }) => white !== expected)).toEqual([]);
  });

  it('fails with the deadline when the page hangs its main thread, never waiting for ever', async () => {
    await expect(record(server.url('/hang'), 640, 360, 3, createDeadline(3000).signal)).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
  });

  it('refuses an unknown videoClock and frames with a remote browser, naming the option', async () => {
    await expect(createTestEngine({ videoClock: 'virtual' as 'frames' })).rejects.toThrow(/videoClock/);
    await expect(createTestEngine({ videoClock: 'frames', connectEndpoint: 'ws://127.0.0.1:9/' })).rejects.toThrow(/videoClock.*connectEndpoint/);
  });

  it('is how an engine with videoClock frames records: in its video browser, every frame on time', async () => {
    const engine = await createTestEngine({ videoClock: 'frames' });
    try {
      const result = await engine.capture({ url: server.url('/timers'), scenario: 'record', format: 'mp4', duration: 2, viewport_width: 640, viewport_height: 360 });
      try {
        const file = videoPath(result);
        expect(await probe(file)).toMatchObject({ frames: 60, width: 640, height: 360 });
        for (const offset of await offsets(file, 640, 360)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
      } finally {
        await result.dispose();
      }
    } finally {
      await engine.close();
    }
  });

  it('scrolls each frame of a scroll video drawn frame by frame to exactly its moment\'s position on the timeline', async () => {
    const engine = await createTestEngine({ videoClock: 'frames' });
    try {
      const params = { scroll_by: 400, scroll_delay: 200, scroll_easing: 'linear' } as const;
      const result = await engine.capture({ url: server.url('/scrolled'), scenario: 'scroll', format: 'mp4', duration: 2, viewport_width: 640, viewport_height: 360, ...params });
      try {
        const positions = await clockReadings(videoPath(result), 640, 360, { fps: FPS });
        // The plugin's step animation is 800 ms; the page can scroll 20000 - 360 px.
        const timeline = new ScrollTimeline({ fps: FPS, scrollBy: params.scroll_by, delayMs: params.scroll_delay, animationMs: 800, easing: params.scroll_easing });
        expect(positions).toEqual(positions.map((_, i) => timeline.positionAt(i, 0, 20000 - 360)));
        expect(positions.at(-1)).toBeGreaterThan(400);
      } finally {
        await result.dispose();
      }
    } finally {
      await engine.close();
    }
  });
});
