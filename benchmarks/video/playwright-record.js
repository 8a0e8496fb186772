#!/usr/bin/env node
// Playwright's own video recording (`recordVideo`) of one page, for the frame-truth table of
// video.js, in a process of its own: Playwright finds its ffmpeg through PLAYWRIGHT_BROWSERS_PATH,
// which it reads when it loads, and video.js points that at the system's ffmpeg.
//
//   node benchmarks/video/playwright-record.js '{"url":..., "width":..., "height":..., "seconds":..., "fps":..., "dir":..., "chromium":...}'
//
// Prints the path of the webm it made.

import { chromium } from 'playwright-core';
import { LAUNCH_ARGS } from '../lib/chromium.js';

const { url, width, height, seconds, fps, dir, chromium: executablePath } = JSON.parse(process.argv[2]);
const browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS });
try {
  const context = await browser.newContext({ viewport: { width, height }, recordVideo: { dir, size: { width, height }, fps } });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(seconds * 1000);
  const video = page.video();
  await context.close();
  console.log(await video.path());
} finally {
  await browser.close();
}
