import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type BrowserServer } from 'playwright-core';
import { findChromium } from '../../src/index.js';
import { chromiumArgs } from '../../src/browser/chromium-path.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

/** Scale-out: the engine drives a browser that runs elsewhere (here: a Playwright browser server). */
let server: BrowserServer;
let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
  server = await chromium.launchServer({ executablePath: findChromium(), args: chromiumArgs(), host: '127.0.0.1' });
});
afterAll(async () => {
  await server?.close();
  await fixtures?.close();
});

describe('remote browser', () => {
  it('captures through connectEndpoint', async () => {
    const engine = await createTestEngine({ connectEndpoint: server.wsEndpoint(), concurrency: 1 });
    try {
      const shot = await engine.capture({ url: fixtures.url('/solid?color=%2300ff00'), viewport_width: 120, viewport_height: 100 });
      const image = await decode(shot.data as Buffer);
      expect([image.width, image.height]).toEqual([120, 100]);
      expect(near(image.at(60, 50), '#00ff00')).toBe(true);
      expect(engine.stats.connected).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
