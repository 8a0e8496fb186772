// Frame truth (issue 26): whether each frame of a video shows the page at the time its timestamp
// says, measured on a page that draws its own clock (fixtures/clock-page) and read back from every
// frame, for the engine's record and scroll videos and for two other ways to record a page:
// - raw CDP: Chromium's screencast, every frame acknowledged at once, piped into ffmpeg at the
//   frames' own timestamps (each frame written for the frame periods until the next one's), as
//   puppeteer-screen-recorder and most hand-made recorders do;
// - Playwright: `recordVideo` on a context (Playwright's screencast client and ffmpeg pipeline),
//   pointed at the system's ffmpeg.
// All three drive the same Chromium binary, the engine's (lib/chromium.js), at the same size and
// rate; one runs at a time.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { clockDrift, clockReadings } from '../../fixtures/clock-page/clock.js';
import { CHROMIUM_PATH, LAUNCH_ARGS } from '../lib/chromium.js';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Where Playwright looks for its ffmpeg under PLAYWRIGHT_BROWSERS_PATH (playwright-core's browsers.json). */
const PLAYWRIGHT_FFMPEG = 'ffmpeg-1013/ffmpeg-linux';
/** The page clock reads all ones on a white frame (no page drawn). */
const BLANK = (1 << 20) - 1;

/**
 * `engine frames` and `frames scroll`: the engine's record and scroll drawn frame by frame in its video
 * browser (`video_clock=frames`, issue 53); `ruler live` and `ruler frames`: a linear scroll of the
 * ruler page, live and frame by frame, read for frames stuck in mid-motion or jumping.
 */
export const TOOLS = ['engine record', 'engine frames', 'raw CDP', 'Playwright', 'engine scroll', 'frames scroll', 'ruler live', 'ruler frames'];

/** The ruler's scroll: linear steps, so that every frame inside one advances by the same px. */
export const RULER = { scroll_by: 400, scroll_delay: 200, scroll_easing: 'linear', animationMs: 800 };

/** The engine's `scenario` video of the clock page (a tall one to scroll, or the ruler). */
async function engineVideo(engine, server, scenario, { width, height, seconds, fps }, file, ruler = false) {
  const url = server.url(ruler ? '/ruler' : scenario === 'scroll' ? '/clock-tall' : '/clock');
  const scroll = ruler ? { scroll_by: RULER.scroll_by, scroll_delay: RULER.scroll_delay, scroll_easing: RULER.scroll_easing } : { scroll_delay: 200 };
  const result = await engine.capture({ url, scenario, format: 'mp4', duration: seconds, viewport_width: width, viewport_height: height, ...scroll });
  try {
    await fs.writeFile(file, await result.buffer());
  } finally {
    await result.dispose();
  }
  return fps;
}

/** Chromium's screencast piped into ffmpeg at the frames' own timestamps, acknowledged at once. */
async function rawScreencast(browser, server, { width, height, seconds, fps }, file) {
  const context = await browser.newContext({ viewport: { width, height } });
  try {
    const page = await context.newPage();
    await page.goto(server.url('/clock'), { waitUntil: 'load' });
    const cdp = await context.newCDPSession(page);
    const ffmpeg = spawn('ffmpeg', ['-v', 'error', '-f', 'image2pipe', '-c:v', 'mjpeg', '-framerate', String(fps), '-i', 'pipe:0',
      '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-crf', '23', '-pix_fmt', 'yuv420p', '-y', file], { stdio: ['pipe', 'ignore', 'inherit'] });
    const exited = new Promise((resolve, reject) => ffmpeg.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`)))));
    const total = seconds * fps;
    let start;
    let last;
    let written = 0;
    const writeUntil = (slot) => {
      for (; written < Math.min(slot, total); written++) ffmpeg.stdin.write(last);
    };
    cdp.on('Page.screencastFrame', ({ data, metadata, sessionId }) => {
      cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined);
      const timestamp = metadata.timestamp * 1000;
      start ??= timestamp;
      if (last) writeUntil(Math.round(((timestamp - start) * fps) / 1000));
      last = Buffer.from(data, 'base64');
    });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 90, maxWidth: width, maxHeight: height, everyNthFrame: 1 });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 300));
    await cdp.send('Page.stopScreencast');
    writeUntil(total);
    ffmpeg.stdin.end();
    await exited;
  } finally {
    await context.close();
  }
  return fps;
}

/**
 * What Chromium's screencast alone delivers on the clock page (no encoder running, every frame
 * acknowledged at once): frames per second and the gaps between them, the floor of every tool.
 */
async function screencastAlone(browser, server, { width, height, seconds }) {
  const context = await browser.newContext({ viewport: { width, height } });
  try {
    const page = await context.newPage();
    await page.goto(server.url('/clock'), { waitUntil: 'load' });
    const cdp = await context.newCDPSession(page);
    const drawn = [];
    cdp.on('Page.screencastFrame', ({ metadata, sessionId }) => {
      drawn.push(metadata.timestamp * 1000);
      cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined);
    });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 90, maxWidth: width, maxHeight: height, everyNthFrame: 1 });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await cdp.send('Page.stopScreencast');
    // The first frames come in bursts while the stream starts (see the engine's lead-in).
    const steady = drawn.slice(10);
    const gaps = steady.slice(1).map((at, i) => at - steady[i]);
    return { fps: (1000 * (steady.length - 1)) / (steady.at(-1) - steady[0]), gaps };
  } finally {
    await context.close();
  }
}

/** Playwright's `recordVideo`, in its own process (see playwright-record.js). */
async function playwrightVideo(server, { width, height, seconds, fps }, file, browsersPath) {
  const dir = path.dirname(file);
  const args = JSON.stringify({ url: server.url('/clock'), width, height, seconds, fps, dir, chromium: CHROMIUM_PATH });
  const { stdout } = await run(process.execPath, [path.join(HERE, 'playwright-record.js'), args], { env: { ...process.env, PLAYWRIGHT_BROWSERS_PATH: browsersPath } });
  await fs.rename(stdout.trim(), file);
  return fps;
}

/** A PLAYWRIGHT_BROWSERS_PATH whose ffmpeg is the system's: nothing is downloaded. */
async function playwrightBrowsersPath(dir) {
  const { stdout } = await run('sh', ['-c', 'command -v ffmpeg']);
  const target = path.join(dir, 'browsers', PLAYWRIGHT_FFMPEG);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.symlink(stdout.trim(), target);
  return path.join(dir, 'browsers');
}

/**
 * How a linear scroll of the ruler moved, from the position each frame shows: the frames inside a
 * step (moving frames up to a pause of 4 or more still frames; its first and last left out, which
 * show part of a frame period's motion) whose advance is more than 2 px off the step's
 * `scroll_by / (animationMs × fps)`, stuck or jumping, and the frames that went back.
 */
function scrollMotion(positions, fps) {
  const perFrame = RULER.scroll_by / ((RULER.animationMs * fps) / 1000);
  const deltas = positions.slice(1).map((y, i) => y - positions[i]);
  const steps = [];
  let current = [];
  let still = 0;
  for (const delta of deltas) {
    if (delta !== 0) {
      current.push(...Array(still).fill(0), delta);
      still = 0;
    } else if (current.length > 0 && ++still >= 4) {
      steps.push(current);
      current = [];
      still = 0;
    }
  }
  if (current.length > 0) steps.push(current);
  const inside = steps.flatMap((step) => step.slice(1, -1));
  return { moving: inside.length, stuck: inside.filter((delta) => Math.abs(delta - perFrame) > 2).length, backwards: deltas.filter((delta) => delta < 0).length };
}

/**
 * Records the clock page `runs` times per tool and size and measures each video: the worst drift
 * of a frame showing new content, frames stepping back, repeats and drops, the clock's rate and the
 * wall time. Yields one result per video, in the order they were made, after one per size for
 * Chromium's screencast alone (`tool: 'screencast alone'`, with `fps` and `gaps`).
 */
export async function* frameTruth({ engine, framesEngine, server, sizes, seconds, fps, runs, log }) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'frame-truth-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS });
  try {
    const browsersPath = await playwrightBrowsersPath(dir);
    for (const { width, height } of sizes) {
      yield { tool: 'screencast alone', width, height, ...(await screencastAlone(browser, server, { width, height, seconds })) };
      for (let index = 0; index < runs; index++) {
        for (const tool of TOOLS) {
          const file = path.join(dir, `${tool.replace(/\W/g, '-')}-${width}-${index}.${tool === 'Playwright' ? 'webm' : 'mp4'}`);
          const size = { width, height, seconds, fps };
          const started = performance.now();
          try {
            const rate =
              tool === 'engine record' ? await engineVideo(engine, server, 'record', size, file)
              : tool === 'engine frames' ? await engineVideo(framesEngine, server, 'record', size, file)
              : tool === 'engine scroll' ? await engineVideo(engine, server, 'scroll', size, file)
              : tool === 'frames scroll' ? await engineVideo(framesEngine, server, 'scroll', size, file)
              : tool === 'ruler live' ? await engineVideo(engine, server, 'scroll', size, file, true)
              : tool === 'ruler frames' ? await engineVideo(framesEngine, server, 'scroll', size, file, true)
              : tool === 'raw CDP' ? await rawScreencast(browser, server, size, file)
              : await playwrightVideo(server, size, file, browsersPath);
            const wall = (performance.now() - started) / 1000;
            if (tool.startsWith('ruler')) {
              yield { tool, width, height, wall, ...scrollMotion(await clockReadings(file, width, height, { fps: rate }), rate) };
              continue;
            }
            // Playwright's video starts before the page has drawn and ends as it closes: frames without a clock are left out.
            const readings = (await clockReadings(file, width, height, { fps: rate })).filter((ms) => ms !== BLANK && ms !== 0);
            yield { tool, width, height, wall, frames: readings.length, ...clockDrift(readings, rate) };
          } catch (error) {
            log(`  ${tool} ${width}x${height}: failed: ${error.message}`);
          } finally {
            await fs.rm(file, { force: true });
          }
        }
      }
    }
  } finally {
    await browser.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
