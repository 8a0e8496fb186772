import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import send from 'send';
import { chromium, type Browser, type CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, chromiumArgs } from '../../src/browser/chromium-path.js';
import { BEGIN_FRAME_SWITCHES, pumpBeginFrames } from '../../src/browser/begin-frame-control.js';
import type { PageCdp } from '../../src/browser/page-cdp.js';
import { beginFrameFrames, type BeginFrameVideoOptions } from '../../plugins/shared/begin-frame-video.js';
import { ffmpegArgs } from '../../plugins/encode-video/ffmpeg-args.js';
import { findFfmpeg } from '../../plugins/encode-video/find-ffmpeg.js';
import { startFfmpeg } from '../../plugins/encode-video/ffmpeg-process.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { clockPage } from '../../fixtures/clock-page/clock.js';
import { createDeadline } from '../../src/core/deadline.js';
import { clockDrift, clockReadings, probe, videoPath } from './video-fixtures.js';
import { createTestEngine } from '../helpers/engine.js';
import { ScrollTimeline } from '../../plugins/scenario-scroll/timeline.js';
import type { CaptureEngine, CaptureResult } from '../../src/index.js';
import { isBuilt, killLeftoverBuiltProcesses, startBuiltService } from '../helpers/built-service.js';
import { isRunning, processTree } from '../helpers/processes.js';

/**
 * Videos drawn frame by frame by a begin-frame browser (issue 53): frame i shows the page at the time
 * of the first plus i / fps, read back from the pixels of every frame of the clock page.
 */

const run = promisify(execFile);
const FPS = 30;
let browser: Browser;
let server: FixtureServer;
let dir: string;
/** An engine as created by default: videos drawn frame by frame. */
let engine: CaptureEngine;
/** The processes of `browser`, which this file launched itself with begin-frame control. */
let rawBrowser: number[];

/** A 2 s test video of 30 frames a second, frame n grey 20 + 3n, with a sound track (made in `beforeAll`). */
let counterVideo: string;
/** Where the `<video>` elements of /videos stand, 160 px apart. */
const VIDEO_LEFTS = [0, 200, 400];

/** A box at `left` px, 60 px down, black until the page turns it white. */
const box = (id: string, left: number): string => `<div id="${id}" style="position:fixed;top:60px;left:${left}px;width:40px;height:40px;background:#000"></div>`;

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
    // Boxes a journey turns white: #clicked by a click, #fetched once a fetch it starts has answered,
    // #typed once 'ab' is typed into #field.
    '/journey': (_req, res) =>
      html(
        res,
        clockPage(undefined, { clock: 'date' }).replace(
          '</body>',
          `${box('fetched', 0)}${box('clicked', 80)}${box('typed', 160)}<input id="field" style="position:fixed;top:140px;left:0">
          <script>clicked.onclick = () => (clicked.style.background = '#fff'); field.oninput = () => field.value === 'ab' && (typed.style.background = '#fff')</script></body>`,
        ),
      ),
    // Served in ranges, as Chromium needs to seek in it.
    '/counter.webm': (req, res) => void send(req, counterVideo).pipe(res),
    // Whole, not in ranges: Chromium cannot seek in it.
    '/counter-whole.webm': (_req, res) => res.writeHead(200, { 'Content-Type': 'video/webm' }).end(readFileSync(counterVideo)),
    // Three videos of the counter: muted autoplaying from 1 s, looped, at twice its speed; one a
    // journey plays at 300 ms; one it plays at once from 1.5 s, to its end. Below them, but with
    // `ranged`, one that cannot be seeked, autoplaying.
    '/videos': (_req, res, q) => {
      const video = (id: string, left: number, start: number, attributes = ''): string =>
        `<video id="${id}" src="/counter.webm#t=${start}" muted preload="auto" ${attributes} style="position:fixed;top:0;left:${left}px;width:160px;height:120px"></video>`;
      html(res, `<body style="background:#000">${video('looped', VIDEO_LEFTS[0]!, 1, 'autoplay loop')}${video('later', VIDEO_LEFTS[1]!, 0)}${video('ending', VIDEO_LEFTS[2]!, 1.5)}${q.has('ranged') ? '' : '<video src="/counter-whole.webm" muted autoplay style="position:fixed;top:200px;left:0;width:160px"></video>'}<script>looped.playbackRate = 2</script></body>`);
    },
    // Data that takes 800 ms of the wall clock to arrive.
    '/slow-data': (_req, res) => void setTimeout(() => res.end('{"ready":true}'), 800),
    // A page that plays and pauses its video every millisecond, dispatches play events of its own
    // and calls the engine's binding by its name, all through the video.
    '/play-flood': (_req, res) =>
      html(
        res,
        `<body style="background:#000"><video id="v" src="/counter.webm" muted preload="auto"></video><script>setInterval(() => { v.pause(); void v.play(); for (let i = 0; i < 10; i++) { v.dispatchEvent(new Event('play')); window.__captureEngineVideoPlays?.(''); } }, 1);</script></body>`,
      ),
    '/hang': (_req, res) =>
      html(res, '<body><script>addEventListener("load", () => { let n = 0; const tick = () => { if (++n === 10) for (;;); requestAnimationFrame(tick); }; requestAnimationFrame(tick); })</script></body>'),
  });
  dir = await mkdtemp(path.join(tmpdir(), 'begin-frame-'));
  counterVideo = path.join(dir, 'counter.webm');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', "color=black:s=160x120:r=30:d=2,format=gray,geq=lum='20+3*N'", '-f', 'lavfi', '-i', 'sine=d=2', '-c:v', 'libvpx-vp9', '-lossless', '1', '-pix_fmt', 'yuv420p', '-c:a', 'libopus', counterVideo]);
  rawBrowser = videoBrowserProcesses();
  engine = await createTestEngine();
});

afterAll(async () => {
  await engine?.close();
  await killLeftoverBuiltProcesses();
  await browser?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A `seconds` long mp4 of `url` at `width`x`height`, drawn frame by frame (with `options` besides the frames'). */
async function record(url: string, width: number, height: number, seconds: number, signal = createDeadline(60_000).signal, options: Partial<BeginFrameVideoOptions> = {}, onSession?: (cdp: CDPSession) => void): Promise<string> {
  const context = await browser.newContext({ viewport: { width, height } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    onSession?.(cdp);
    const pump = pumpBeginFrames(cdp);
    await page.goto(url, { waitUntil: 'load' });
    await pump.stop(signal);
    const output = path.join(dir, `${width}x${height}-${seconds}.mp4`);
    const ffmpeg = startFfmpeg(await findFfmpeg(), ffmpegArgs({ format: 'mp4', fps: FPS, width, height, quality: 90, input: 'jpeg', output }), output, signal);
    try {
      await ffmpeg.encode(beginFrameFrames(cdp, { fps: FPS, frameCount: seconds * FPS, quality: 90, signal, ...options }));
    } finally {
      await ffmpeg.kill();
    }
    return output;
  } finally {
    await context.close();
  }
}

/** Whether the box at `left` px (of /timers, /journey) is white, frame by frame. */
async function boxWhite(file: string, width: number, height: number, left = 0): Promise<boolean[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { encoding: 'buffer', maxBuffer: 1 << 30 });
  const frames = Math.floor(stdout.length / (width * height));
  return Array.from({ length: frames }, (_, i) => stdout[i * width * height + 80 * width + left + 20]! > 128);
}

/** Which frame of the counter video each `<video>` of /videos shows, frame by frame. */
async function counterFrames(file: string, width: number, height: number): Promise<number[][]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], { encoding: 'buffer', maxBuffer: 1 << 30 });
  const frames = Math.floor(stdout.length / (width * height));
  return Array.from({ length: frames }, (_, i) => VIDEO_LEFTS.map((left) => Math.round((stdout[i * width * height + 60 * width + left + 80]! - 20) / 3)));
}

/** The shared engine's video browser: the begin-frame processes below this one but `browser`'s. */
function engineVideoBrowser(): number[] {
  const raw = new Set(rawBrowser.flatMap((pid) => processTree(pid)));
  return videoBrowserProcesses().filter((pid) => !raw.has(pid));
}

/** A 640x360 video of `path` by the shared engine, its file read by `check` before it is removed. */
async function engineVideo(params: Record<string, unknown>, check: (file: string, result: CaptureResult) => Promise<void>): Promise<void> {
  const result = await engine.capture({ format: 'mp4', duration: 1, viewport_width: 640, viewport_height: 360, ...params, url: server.url(params.url as string) });
  try {
    await check(videoPath(result), result);
  } finally {
    await result.dispose();
  }
}

/** The processes below `root` whose command line has `--enable-begin-frame-control`: video browsers. */
function videoBrowserProcesses(root = process.pid): number[] {
  return processTree(root).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--enable-begin-frame-control');
    } catch {
      return false;
    }
  });
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
    // The clock's readings go round 100 ms in three, so at most one in three frames falls on a step's moment.
    expect(shown.length).toBeGreaterThanOrEqual(40);
    expect(shown.filter(({ white, expected }) => white !== expected)).toEqual([]);
  });

  it('fails with the deadline when the page hangs its main thread, never waiting for ever', async () => {
    await expect(record(server.url('/hang'), 640, 360, 3, createDeadline(1500).signal)).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
  });

  it('refuses an unknown videoClock and frames with a remote browser, naming the option', async () => {
    await expect(createTestEngine({ videoClock: 'virtual' as 'frames' })).rejects.toThrow(/videoClock/);
    await expect(createTestEngine({ videoClock: 'frames', connectEndpoint: 'ws://127.0.0.1:9/' })).rejects.toThrow(/videoClock.*connectEndpoint/);
  });

  it('is how an engine records by default: in its video browser, counted in its stats, every frame on time', async () => {
    const before = engine.stats;
    let during: typeof before | undefined;
    const onProgress = ({ phase }: { phase: string }): void => void (phase === 'capture' && (during = engine.stats));
    // Its page's session is the engine's own, attached before the page navigates (PageCdp.openAttached).
    const sessions: { attached: boolean; shared: boolean }[] = [];
    await engine.use({ name: 'session-probe', stages: [{ name: 'session-probe', phase: 'prepare', run: ({ cdp }) => void sessions.push({ attached: (cdp as unknown as PageCdp).attached, shared: (cdp as unknown as PageCdp).sharesPlaywrightSession }) }] });
    const result = await engine.capture({ url: server.url('/timers'), scenario: 'record', format: 'mp4', duration: 1, viewport_width: 640, viewport_height: 360 }, { onProgress });
    expect(sessions[0]).toEqual({ attached: true, shared: false });
    try {
      const file = videoPath(result);
      expect(await probe(file)).toMatchObject({ frames: 30, width: 640, height: 360 });
      for (const offset of await offsets(file, 640, 360)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
    } finally {
      await result.dispose();
    }
    // The video's context is the video browser's: the main pool alone would show none running.
    expect(during).toMatchObject({ running: before.running + 1, connected: true });
    expect(during?.contexts).toBeGreaterThan(before.contexts);
    expect(engineVideoBrowser().length).toBeGreaterThan(0);
  });

  it('scrolls each frame of a scroll video drawn frame by frame to exactly its moment\'s position on the timeline', async () => {
    const params = { scroll_by: 400, scroll_delay: 200, scroll_easing: 'linear' } as const;
    await engineVideo({ url: '/scrolled', scenario: 'scroll', duration: 2, ...params }, async (file) => {
      const positions = await clockReadings(file, 640, 360, { fps: FPS });
      // The plugin's step animation is 800 ms; the page can scroll 20000 - 360 px.
      const timeline = new ScrollTimeline({ fps: FPS, scrollBy: params.scroll_by, delayMs: params.scroll_delay, animationMs: 800, easing: params.scroll_easing });
      expect(positions).toEqual(positions.map((_, i) => timeline.positionAt(i, 0, 20000 - 360)));
      expect(positions.at(-1)).toBeGreaterThan(400);
    });
  });

  it('plays a journey between frames on the video\'s time, and holds the clock while the page\'s fetch is pending', async () => {
    // At 200 ms a fetch the network answers 800 ms later; at 500 ms a click (Playwright's, its pointer
    // input drawn between frames), at 540 ms 'ab' entered through the page's DOM.
    const enter = "field.value = 'ab'; field.dispatchEvent(new Event('input'))";
    const actions = [{ wait: 200 }, { evaluate: "void fetch('/slow-data').then((r) => r.json()).then(() => (fetched.style.background = '#fff'))" }, { wait: 300 }, { click: '#clicked' }, { wait: 40 }, { evaluate: enter }];
    await engineVideo({ url: '/journey', scenario: 'record', video_clock: 'frames', actions }, async (file) => {
      for (const offset of await offsets(file, 640, 360)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
      // The click lands before the frame of 500 ms (frame 15) is drawn.
      expect(await boxWhite(file, 640, 360, 80)).toEqual(Array.from({ length: 30 }, (_, i) => i >= 15));
      // 'ab' is entered at 540 ms: the frame of 566.7 ms (17) is the first to show it.
      expect(await boxWhite(file, 640, 360, 160)).toEqual(Array.from({ length: 30 }, (_, i) => i >= 17));
      // The page's clock stood still until the data came: it shows from the frame after the fetch (200 ms),
      // not 800 ms of the wall clock later (on the video's clock, several seconds at this speed).
      expect(await boxWhite(file, 640, 360, 0)).toEqual(Array.from({ length: 30 }, (_, i) => i >= 7));
    });
  });

  it('plays the page\'s <video> elements on the video\'s clock: autoplaying, looped, at its rate, played, paused and seeked by the page, to its end', async () => {
    const actions = [
      ...[{ evaluate: 'void ending.play()' }, { wait: 300 }, { evaluate: 'void later.play()' }, { wait: 300 }, { evaluate: 'later.pause()' }],
      ...[{ wait: 100 }, { evaluate: 'looped.currentTime = 0; looped.playbackRate = 1' }],
    ];
    // Once the videos can play through: they load on the wall clock, before the video starts.
    const loaded = "[...document.querySelectorAll('video')].every((video) => video.readyState === 4)";
    // A page playing sound starts Chromium's audio client, which makes a runtime folder: in the profile, gone with it.
    const audioFolders = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('pulse-'));
    const foldersBefore = audioFolders();
    await engineVideo({ url: '/videos', scenario: 'record', wait_for_function: loaded, actions }, async (file, result) => {
      // The one that cannot be seeked is left to play as it does, and the capture says so.
      expect(result.incomplete).toEqual(['video_clock']);
      const frames = await counterFrames(file, 640, 360);
      expect(frames).toHaveLength(30);
      const [looped, later, ending] = VIDEO_LEFTS.map((_, n) => frames.map((shown) => shown[n]!));
      // The frames of a video off its moment by more than one of its frames, counted around its 60 when it loops.
      const off = (shown: number[], expected: (k: number) => number, length = Infinity): { k: number; frame: number }[] =>
        shown.flatMap((frame, k) => {
          const error = Math.abs(frame - expected(k)) % length;
          return Math.min(error, length - error) > 1 ? [{ k, frame }] : [];
        });
      // Played at once from 1.5 s (frame 45): frame k of the video shows its frame 45 + k, then its last.
      expect(off(ending!, (k) => Math.min(59, 45 + k))).toEqual([]);
      // Played by the journey at 300 ms, paused at 600 ms: its frame k - 9 from frame 9, its frame 8 from frame 18.
      expect(off(later!, (k) => Math.max(0, Math.min(k, 17) - 9))).toEqual([]);
      // Autoplaying once loaded, a moment the page's load decides: from its first move on, 2 frames a
      // frame, round its end to its start; seeked to its start at 700 ms at rate 1, its frame k - 21.
      const seeked = 21;
      const moving = looped!.findIndex((frame) => frame !== looped![0]) - 1;
      expect(moving).toBeGreaterThanOrEqual(0);
      expect(off(looped!.slice(moving, seeked), (k) => looped![moving]! + 2 * k, 60)).toEqual([]);
      expect(looped!.slice(moving, seeked).some((frame, k, shown) => frame < shown[k - 1]!)).toBe(true);
      expect(off(looped!.slice(seeked), (k) => k)).toEqual([]);
    });
    expect(audioFolders().filter((name) => !foldersBefore.includes(name))).toEqual([]);
  });

  it('leaves the page\'s videos to play as they do once their seeks have spent their time, and says so once', async () => {
    let left = 0;
    await record(server.url('/videos?ranged'), 640, 360, 1, undefined, { onVideoLeft: () => left++ });
    expect(left).toBe(0);
    await record(server.url('/videos?ranged'), 640, 360, 1, undefined, { videoSeekMs: 0, onVideoLeft: () => left++ });
    expect(left).toBe(1);
  });

  it('hears a page\'s videos start playing once a frame at most, whatever the page does', async () => {
    let calls = 0;
    await record(server.url('/play-flood'), 640, 360, 1, undefined, {}, (cdp) => cdp.on('Runtime.bindingCalled', () => void calls++));
    // 30 frames; the page played its video 1,000 times and called the binding 10,000 times itself.
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThanOrEqual(31);
  });

  it('scrolls a journey\'s scroll_to smoothly on the video\'s time', async () => {
    await engineVideo({ url: '/scrolled', scenario: 'record', actions: [{ wait: 300 }, { scroll_to: { y: 600 } }] }, async (file) => {
      const positions = await clockReadings(file, 640, 360, { fps: FPS });
      expect(positions.slice(0, 9)).toEqual(Array(9).fill(0));
      expect(positions.slice(9).every((y, i) => y >= positions[i + 8]!)).toBe(true);
      // Smoothly: through positions between, to the end.
      expect(positions.some((y) => y > 0 && y < 600)).toBe(true);
      expect(positions.at(-1)).toBe(600);
    });
  });

  it('closes its video browser with it: no process left', async () => {
    const running = engineVideoBrowser();
    expect(running.length).toBeGreaterThan(0);
    await engine.close();
    expect(running.filter((pid) => isRunning(pid))).toEqual([]);
  });
});

describe.skipIf(!isBuilt())('begin-frame video over HTTP: the built service', () => {
  const KEY = 'ce_begin_frame_test_0123456789abcdefgh';

  it('draws a record frame by frame by default, refuses video_clock on a still, and leaves no video browser when it stops', async () => {
    const service = await startBuiltService('node', { CAPTURE_API_KEYS: `${KEY}:PRO`, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', CAPTURE_LOG_LEVEL: 'warn' });
    const get = (query: Record<string, string>): Promise<Response> => fetch(`${service.origin}/api/v1/capture?${new URLSearchParams({ viewport_width: '640', viewport_height: '360', ...query })}`, { headers: { 'X-API-Key': KEY } });
    try {
      const response = await get({ url: server.url('/timers'), scenario: 'record', duration: '1' });
      expect(response.status).toBe(200);
      const file = path.join(dir, 'http.mp4');
      await writeFile(file, Buffer.from(await response.arrayBuffer()));
      expect(await probe(file)).toMatchObject({ frames: 30 });
      for (const offset of await offsets(file, 640, 360)) expect(Math.abs(offset)).toBeLessThanOrEqual(1);
      const refused = await get({ url: server.url('/timers'), video_clock: 'frames' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS', params: ['video_clock', 'format'] });
    } finally {
      const videoBrowser = videoBrowserProcesses(service.child.pid as number);
      await service.stop();
      expect(videoBrowser.length).toBeGreaterThan(0);
      expect(videoBrowser.filter((pid) => isRunning(pid))).toEqual([]);
    }
  });
});
