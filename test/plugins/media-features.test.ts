import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/** Five bands of 60 px, red until their media query matches: forced colours, more contrast, reduced transparency, dark, print. */
const QUERIES = ['(forced-colors: active)', '(prefers-contrast: more)', '(prefers-reduced-transparency: reduce)', '(prefers-color-scheme: dark)', 'print'];

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/features': (_req, res) =>
      html(
        res,
        `<style>*{forced-color-adjust:none}body{display:flex;height:100vh}div{width:60px;background:#ff0000}
        ${QUERIES.map((query, i) => `@media ${query}{#f${i}{background:#00ff00}}`).join('\n')}</style>
        <body>${QUERIES.map((_, i) => `<div id="f${i}"></div>`).join('')}</body>`,
      ),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

/** Which of the bands came out green. */
async function matched(input: Omit<CaptureInput, 'url'>): Promise<boolean[]> {
  const result = await engine.capture({ url: fixtures.url('/features'), viewport_width: 300, viewport_height: 100, ...input });
  const image = await decode(result.data as Buffer);
  return QUERIES.map((_, i) => near(image.at(i * 60 + 30, 50), '#00ff00'));
}

describe("media_features (Playwright's forcedColors and contrast, Chromium's reduced transparency)", () => {
  it('the page sees none of them unless asked', async () => {
    expect(await matched({})).toEqual([false, false, false, false, false]);
  });

  it('forced-colors, prefers-contrast and prefers-reduced-transparency match when asked, alone or together', async () => {
    expect(await matched({ media_features: 'forced-colors:active' })).toEqual([true, false, false, false, false]);
    expect(await matched({ media_features: 'prefers-reduced-transparency:reduce' })).toEqual([false, false, true, false, false]);
    expect(await matched({ media_features: { 'forced-colors': 'active', 'prefers-contrast': 'more', 'prefers-reduced-transparency': 'reduce' } })).toEqual([true, true, true, false, false]);
  });

  it('hold beside dark_mode and media_type=print, which Playwright sets again after the navigation', async () => {
    expect(await matched({ media_features: 'prefers-contrast:more,prefers-reduced-transparency:reduce', dark_mode: true, media_type: 'print' })).toEqual([false, true, true, true, true]);
  });
});
