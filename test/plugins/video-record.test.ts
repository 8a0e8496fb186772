import { describe, expect, it } from 'vitest';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { videoSuite, probe, frameAt, videoPath, ffmpegChildren, filesIn, clockReadings, clockDrift, MP4_MAGIC, WEBM_MAGIC } from './video-fixtures.js';

/** `scenario=record` against real Chromium and ffmpeg, and what every video capture shares. */

const suite = videoSuite();

const small = { viewport_width: 480, viewport_height: 270 };

describe('scenario record', () => {
  it('records a CSS animation as it plays into an mp4 of exactly duration × fps frames', async () => {
    const result = await suite.engine.capture({ url: suite.server.url('/fade?ms=10000'), scenario: 'record', format: 'mp4', duration: 2, ...small });
    suite.results.push(result);
    expect((await result.buffer()).subarray(4, 8)).toEqual(MP4_MAGIC);
    const file = videoPath(result);
    const info = await probe(file);
    expect(info).toMatchObject({ codec: 'h264', pixFmt: 'yuv420p', width: 480, height: 270, frames: 60 });
    expect(Math.abs(info.duration - 2)).toBeLessThanOrEqual(1 / 30);
    // Red fades to blue over 10 s from page load, so the 2 s recording falls inside the fade even on a
    // slow machine: 1.8 s apart is ~46 levels of change; frozen frames would show none.
    const [r1, , b1] = (await frameAt(file, 0.1)).at(240, 135);
    const [r2, , b2] = (await frameAt(file, 1.9)).at(240, 135);
    expect(r1 - r2).toBeGreaterThan(25);
    expect(b2 - b1).toBeGreaterThan(25);
  });

  it('shows in every frame the page at the frame\'s own time: no fast start, no step back, a new frame for nearly every moment', async () => {
    const result = await suite.engine.capture({ url: suite.server.url('/clock'), scenario: 'record', format: 'mp4', duration: 3, viewport_width: 640, viewport_height: 360 });
    suite.results.push(result);
    const { drift, backwards, repeats, unreadable } = clockDrift(await clockReadings(videoPath(result), 640, 360), 30);
    expect(unreadable).toBe(0);
    expect(backwards).toBe(0);
    expect(Math.max(...drift.map(Math.abs))).toBeLessThanOrEqual(50);
    // At 640x360 Chromium draws about 60 frames a second, so a repeat is a hiccup of the machine
    // (a CI run under load saw 6 in 90); a recorder that samples late repeats a quarter of them.
    expect(repeats).toBeLessThanOrEqual(0.1 * 90);
  });

  it('never steps back in time at 1280x720 either', async () => {
    // At this size on two cores Chromium sends about 20 frames a second with gaps of 100-200 ms
    // while ffmpeg encodes (a raw screencast shows them too): how far frames are from their time
    // depends on the machine, so benchmarks/video reports it; the order of frames does not.
    const result = await suite.engine.capture({ url: suite.server.url('/clock'), scenario: 'record', format: 'mp4', duration: 2, viewport_width: 1280, viewport_height: 720 });
    suite.results.push(result);
    const { backwards, unreadable } = clockDrift(await clockReadings(videoPath(result), 1280, 720), 30);
    expect(unreadable).toBe(0);
    expect(backwards).toBe(0);
  });

  it('records VP9 webm and stores it for response_type=json', async () => {
    const result = await suite.engine.capture({ url: suite.server.url('/solid?color=%2300ff00'), scenario: 'record', format: 'webm', duration: 1, response_type: 'json', ...small });
    suite.results.push(result);
    expect(result).toMatchObject({ format: 'webm', contentType: 'video/webm' });
    expect(result.url).toMatch(/^\/api\/files\/.+\.webm$/);
    expect((await result.buffer()).subarray(0, 4)).toEqual(WEBM_MAGIC);
    const info = await probe(videoPath(result));
    expect(info).toMatchObject({ codec: 'vp9', frames: 30, width: 480, height: 270 });
  });

  it('implies mp4 for a video scenario and scroll for a video format', async () => {
    const recorded = await suite.engine.capture({ url: suite.server.url('/solid'), scenario: 'record', duration: 1, response_type: 'json', ...small });
    suite.results.push(recorded);
    expect(recorded.format).toBe('mp4');
    expect(recorded.url).toMatch(/^\/api\/files\/.+\.mp4$/);
    await expect(suite.engine.capture({ url: suite.server.url('/solid'), scenario: 'record', format: 'png' })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS' });
    await expect(suite.engine.capture({ url: suite.server.url('/solid'), format: 'webm', full_page: true })).rejects.toMatchObject({ code: 'INCOMPATIBLE_PARAMETERS' });
  });

  it('stops at once on abort: no ffmpeg left running, no temporary file left behind', async () => {
    const before = await ffmpegChildren();
    const filesBefore = await filesIn(suite.engine.options.tempDir);
    const controller = new AbortController();
    const capture = suite.engine.capture({ url: suite.server.url('/fade'), scenario: 'record', duration: 20, ...small }, { signal: controller.signal });
    // Abort once ffmpeg is encoding.
    for (let i = 0; i < 200 && (await ffmpegChildren()) === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ffmpegChildren()).toBeGreaterThan(before);
    controller.abort();
    const error = await capture.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CaptureError);
    expect(error).toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'aborted' } });
    expect(await ffmpegChildren()).toBe(before);
    expect(await filesIn(suite.engine.options.tempDir)).toEqual(filesBefore);
  });
});
