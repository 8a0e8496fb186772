import { describe, expect, it } from 'vitest';
import type { CaptureResult } from '../../src/index.js';
import { BAND_COLOURS } from '../helpers/fixture-server.js';
import { createTestEngine } from '../helpers/engine.js';
import { near } from '../helpers/pixels.js';
import { videoSuite, probe, frameAt, videoPath, clockReadings, clockDrift, MP4_MAGIC, WEBM_MAGIC } from './video-fixtures.js';

/**
 * `scenario=scroll` against real Chromium and ffmpeg. With scroll_delay 200 and the plugin's 800 ms
 * animation a step takes 1 s: the page rests at 1000 px during [0.8 s, 1 s), at 2000 px during
 * [1.8 s, 2 s), and so on.
 */

const suite = videoSuite();

async function scroll(path: string, params: Record<string, unknown> = {}): Promise<{ result: CaptureResult; file: string }> {
  const result = await suite.engine.capture({ url: suite.server.url(path), scenario: 'scroll', viewport_width: 640, viewport_height: 360, scroll_delay: 200, duration: 2, ...params });
  suite.results.push(result);
  return { result, file: videoPath(result) };
}

describe('scenario scroll', () => {
  it('renders an H.264 mp4 of exactly duration × fps frames that scrolls band by band', async () => {
    const { result, file } = await scroll('/bands', { format: 'mp4' });
    expect(result).toMatchObject({ format: 'mp4', contentType: 'video/mp4', extension: 'mp4', width: 640, height: 360 });
    expect((await result.buffer()).subarray(4, 8)).toEqual(MP4_MAGIC);
    const info = await probe(file);
    expect(info).toMatchObject({ codec: 'h264', pixFmt: 'yuv420p', width: 640, height: 360, frames: 60, frameRate: '30/1' });
    expect(Math.abs(info.duration - 2)).toBeLessThanOrEqual(1 / 30);
    const first = await frameAt(file, 0);
    const last = await frameAt(file, 1.95);
    expect(near(first.at(320, 180), BAND_COLOURS[0] as string, 20)).toBe(true);
    expect(near((await frameAt(file, 0.9)).at(320, 180), BAND_COLOURS[1] as string, 20)).toBe(true);
    expect(near(last.at(320, 180), BAND_COLOURS[2] as string, 20)).toBe(true);
    expect(first.at(320, 180)).not.toEqual(last.at(320, 180));
  });

  it('gives the page the time the video shows: its own clock runs at the video\'s speed, never back', async () => {
    const { file } = await scroll('/clock?height=20000px', { format: 'mp4', duration: 3 });
    const { rate, backwards } = clockDrift(await clockReadings(file, 640, 360), 30);
    expect(backwards).toBe(0);
    expect(Math.abs(rate - 1)).toBeLessThanOrEqual(0.05);
  });

  it('renders VP9 webm at odd viewport sizes (mp4 alone needs even sides)', async () => {
    const { result, file } = await scroll('/bands', { format: 'webm', viewport_width: 321, viewport_height: 241, duration: 1 });
    expect(result).toMatchObject({ format: 'webm', contentType: 'video/webm', width: 321, height: 241 });
    expect((await result.buffer()).subarray(0, 4)).toEqual(WEBM_MAGIC);
    const info = await probe(file);
    expect(info).toMatchObject({ codec: 'vp9', pixFmt: 'yuv420p', width: 321, height: 241, frames: 30 });
    expect(Math.abs(info.duration - 1)).toBeLessThanOrEqual(1 / 30);
  });

  it('shows lazy content as it scrolls into view (IntersectionObserver and loading=lazy)', async () => {
    // Steps of 800 px land on the top of image 1 (data-src + observer) and image 2 (loading=lazy).
    const { file } = await scroll('/lazy', { format: 'mp4', scroll_by: 800, scroll_delay: 500, duration: 3 });
    expect(near((await frameAt(file, 1.25)).at(100, 100), '#00ff00', 30)).toBe(true);
    expect(near((await frameAt(file, 2.55)).at(100, 100), '#00ff00', 30)).toBe(true);
    const reveal = await scroll('/reveal', { format: 'mp4' });
    expect(near((await frameAt(reveal.file, 1.9)).at(320, 180), '#ff00ff', 30)).toBe(true);
  });

  it('follows the engine option fps', async () => {
    const slow = await createTestEngine({ fps: 12, videoClock: 'live' });
    try {
      const result = await slow.capture({ url: suite.server.url('/bands'), scenario: 'scroll', viewport_width: 320, viewport_height: 240, duration: 1 });
      suite.results.push(result);
      expect(await probe(videoPath(result))).toMatchObject({ frames: 12, frameRate: '12/1' });
    } finally {
      await slow.close();
    }
  });

  it('keeps scrolling when the page grows at the bottom (infinite lists)', async () => {
    // 2000 px at first: step 2 stops at the bottom (1640), the page grows, step 3 reaches 2640.
    const { file } = await scroll('/grow', { format: 'mp4', duration: 3 });
    expect(near((await frameAt(file, 1.9)).at(320, 180), '#00ff00', 20)).toBe(true);
    expect(near((await frameAt(file, 2.9)).at(320, 180), '#0000ff', 20)).toBe(true);
  });
});
