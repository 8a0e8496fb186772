// Contender `cdp-shell`: what Chromium alone costs a fresh-context capture. The headless shell,
// on the very command line Playwright gives it for `floor-fast-shell`, driven with raw CDP over
// its pipe (no Playwright, no engine): per capture a browser context, a page target attached to
// in flat mode, Page.enable, the viewport, Page.navigate until DOMContentLoaded, one animation
// frame, Page.captureScreenshot (optimizeForSpeed), the context disposed. It is the cost any
// engine on this binary pays before it does anything of its own; only PNG, JPEG and WebP
// viewport shots (no full page, selector or device).
// A unit of the static benchmark (see index.js).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HEADLESS_SHELL_PATH, LAUNCH_ARGS } from '../../lib/chromium.js';
import { processTable, treePids } from '../../lib/process-tree.js';
import { thumbnail } from './finish.js';

/** The browser command line Playwright uses for `floor-fast-shell`, read off a browser it launched. */
async function playwrightCommandLine(executablePath) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS, headless: true });
  try {
    const table = processTable();
    const pid = treePids(process.pid, table).find((p) => p !== process.pid && table.get(p).comm.startsWith('chrom'));
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).slice(1);
  } finally {
    await browser.close();
  }
}

/** A CDP connection over Chromium's pipe: send(method, params, sessionId) and events by session. */
function pipeConnection(child) {
  const [, , , toChromium, fromChromium] = child.stdio;
  let nextId = 1;
  const pending = new Map();
  const listeners = new Set();
  let buffered = '';
  fromChromium.setEncoding('utf8');
  fromChromium.on('data', (chunk) => {
    const parts = (buffered + chunk).split('\0');
    buffered = parts.pop();
    for (const part of parts) {
      const message = JSON.parse(part);
      if (message.id === undefined) {
        for (const listener of listeners) listener(message);
        continue;
      }
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(`${message.error.message} (${message.error.code})`));
      else resolve(message.result);
    }
  });
  return {
    send(method, params = {}, sessionId) {
      const id = nextId++;
      toChromium.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    /** The next event `method` of session `sessionId`. */
    once(method, sessionId) {
      return new Promise((resolve) => {
        const listener = (message) => {
          if (message.method !== method || message.sessionId !== sessionId) return;
          listeners.delete(listener);
          resolve(message.params);
        };
        listeners.add(listener);
      });
    },
  };
}

export async function cdpFloor({ executablePath = HEADLESS_SHELL_PATH } = {}) {
  let child;
  let profile;
  let cdp;

  const shoot = async ({ url, format, width, height, quality }) => {
    const { browserContextId } = await cdp.send('Target.createBrowserContext');
    try {
      const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
      await Promise.all([
        cdp.send('Page.enable', {}, sessionId),
        cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId),
      ]);
      const loaded = cdp.once('Page.domContentEventFired', sessionId);
      await cdp.send('Page.navigate', { url }, sessionId);
      await loaded;
      // Right after DOMContentLoaded Chromium may have no frame coming (see floor.js): one animation frame.
      await cdp.send('Runtime.evaluate', { expression: 'new Promise((resolve) => requestAnimationFrame(resolve))', awaitPromise: true }, sessionId);
      const type = format === 'jpg' ? 'jpeg' : format;
      const { data } = await cdp.send('Page.captureScreenshot', { format: type, ...(type === 'png' ? {} : { quality }), optimizeForSpeed: true }, sessionId);
      return Buffer.from(data, 'base64');
    } finally {
      await cdp.send('Target.disposeBrowserContext', { browserContextId });
    }
  };

  return {
    async setup() {
      const args = (await playwrightCommandLine(executablePath)).filter((a) => !a.startsWith('--user-data-dir='));
      profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cdp-floor-'));
      child = spawn(executablePath, [...args, `--user-data-dir=${profile}`], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
      cdp = pipeConnection(child);
      const { product } = await cdp.send('Browser.getVersion');
      return { version: product };
    },
    capture: {
      'cdp-shell': async (job) => {
        if (job.fullPage || job.selector || job.device) throw new Error('cdp-shell shoots the viewport only');
        return thumbnail(await shoot(job), job);
      },
    },
    async close() {
      if (child) {
        await cdp.send('Browser.close').catch(() => undefined);
        if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      }
      if (profile) fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
