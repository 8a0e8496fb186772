import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { decode, type DecodedImage } from '../helpers/pixels.js';
import { html, startFixtureServer, type FixtureServer, type Handler } from '../helpers/fixture-server.js';
import { createTestEngine } from '../helpers/engine.js';
import { until } from '../helpers/wait.js';
import type { CaptureEngine, CaptureResult } from '../../src/index.js';
import { clockPage } from '../../fixtures/clock-page/clock.js';

export { clockDrift, clockReadings } from '../../fixtures/clock-page/clock.js';

const run = promisify(execFile);

const page = html;

/** Pages only the video tests need, added to the shared fixture server. */
export const VIDEO_ROUTES: Record<string, Handler> = {
  // The page's own clock (fixtures/clock-page), on a page `height` tall.
  '/clock': (_req, res, q) => page(res, clockPage(q.get('height') ?? undefined)),
  // Red to blue over `ms`, starting when the page loads, then stays blue.
  '/fade': (_req, res, q) =>
    page(res, `<body><style>@keyframes fade{from{background:#ff0000}to{background:#0000ff}}
      div{height:100vh;animation:fade ${Number(q.get('ms') ?? 3000)}ms linear forwards}</style><div></div></body>`),
  // Grey bands that turn magenta when they scroll into view, as lazy widgets do.
  '/reveal': (_req, res) =>
    page(res, `<body>${Array.from({ length: 6 }, () => '<div class="band" style="height:1000px;background:#808080"></div>').join('')}<script>
      const io = new IntersectionObserver((entries) => entries.forEach((e) => { if (e.isIntersecting) e.target.style.background = '#ff00ff'; }));
      document.querySelectorAll('.band').forEach((band) => io.observe(band));
    </script></body>`),
  // An infinite list: 2 bands of 1000 px, and 2 more each time the bottom comes near.
  '/grow': (_req, res) =>
    page(res, `<body><script>
      const colours = ['#ff0000', '#00ff00', '#0000ff', '#ffff00'];
      let n = 0;
      const add = () => { for (let i = 0; i < 2; i++) { const d = document.createElement('div'); d.style.cssText = 'height:1000px;background:' + colours[n++ % 4]; document.body.append(d); } };
      add();
      addEventListener('scroll', () => { if (scrollY + innerHeight > document.body.scrollHeight - 300) add(); });
    </script></body>`),
};

export interface Probe {
  codec: string;
  width: number;
  height: number;
  pixFmt: string;
  frames: number;
  duration: number;
  frameRate: string;
}

/** What ffprobe sees in a video, frames counted by decoding them all. */
export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', [
    '-v', 'error', '-select_streams', 'v:0', '-count_frames',
    '-show_entries', 'stream=codec_name,width,height,pix_fmt,nb_read_frames,r_frame_rate:format=duration',
    '-of', 'json', file,
  ]);
  const json = JSON.parse(stdout) as { streams: Record<string, string | number>[]; format: { duration: string } };
  const stream = json.streams[0] as Record<string, string | number>;
  return {
    codec: String(stream.codec_name),
    width: Number(stream.width),
    height: Number(stream.height),
    pixFmt: String(stream.pix_fmt),
    frames: Number(stream.nb_read_frames),
    duration: Number(json.format.duration),
    frameRate: String(stream.r_frame_rate),
  };
}

/** The frame shown at `seconds`, decoded to pixels. */
export async function frameAt(file: string, seconds: number): Promise<DecodedImage> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-ss', String(seconds), '-i', file, '-frames:v', '1', '-f', 'image2', '-c:v', 'png', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });
  return decode(stdout);
}

/** ffmpeg processes started by this test process. */
export async function ffmpegChildren(): Promise<number> {
  try {
    const { stdout } = await run('pgrep', ['-x', 'ffmpeg', '-P', String(process.pid)]);
    return stdout.trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** Files directly in `dir` (the engine's temp dir holds the storage folder too). */
export async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

export const MP4_MAGIC = Buffer.from('ftyp');
export const WEBM_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);

/** The temporary file behind a video result (the engine keeps it until `dispose()`). */
export function videoPath(result: { stream(): NodeJS.ReadableStream }): string {
  const stream = result.stream() as NodeJS.ReadableStream & { path?: string; destroy(): void };
  stream.destroy();
  if (typeof stream.path !== 'string') throw new Error('not a file-backed result');
  return stream.path;
}

/** One fixture server and one engine per test file; every kept result is disposed at the end. */
export function videoSuite(): { readonly server: FixtureServer; readonly engine: CaptureEngine; readonly results: CaptureResult[] } {
  let server: FixtureServer | undefined;
  let engine: CaptureEngine | undefined;
  const results: CaptureResult[] = [];
  beforeAll(async () => {
    server = await startFixtureServer(VIDEO_ROUTES);
    // These files test the screencast path: the recordings of pages as they play.
    engine = await createTestEngine({ videoClock: 'live' });
    // A recording made while the fresh engine still opens its warm contexts competes with them for
    // the CPU and gets starved frames; start recording once the engine is ready.
    const warm = engine;
    await until(() => warm.stats.warm >= 1, 'the warm context to open');
  });
  afterAll(async () => {
    await Promise.all(results.map((result) => result.dispose()));
    await engine?.close();
    await server?.close();
  });
  return {
    get server() {
      return server as FixtureServer;
    },
    get engine() {
      return engine as CaptureEngine;
    },
    results,
  };
}
