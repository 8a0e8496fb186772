import type { CapturePlugin, CaptureContext } from './types.js';
import type { Egress } from './egress-wiring.js';
import { urlNotAllowed } from './egress-wiring.js';
import { trackInflight } from './network-idle.js';
import { abortable } from './deadline.js';
import { toCaptureError } from './to-capture-error.js';

/** Quiet time that makes the network count as idle, as in Puppeteer. */
const NETWORK_IDLE_MS = 500;

/** The stages every capture needs: viewport, the egress check of the target, navigation. */
export function corePlugin(egress: Egress): CapturePlugin {
  return {
    name: 'core',
    stages: [
      {
        name: 'check-target',
        phase: 'prepare',
        run: async (ctx) => {
          await egress.checkTarget(ctx.params.url);
        },
      },
      {
        name: 'viewport',
        phase: 'prepare',
        run: async ({ page, params }) => {
          const current = page.viewportSize();
          if (current?.width !== params.viewport_width || current.height !== params.viewport_height) {
            await page.setViewportSize({ width: params.viewport_width, height: params.viewport_height });
          }
        },
      },
      { name: 'goto', phase: 'navigate', run: (ctx) => navigate(ctx, egress) },
    ],
  };
}

async function navigate(ctx: CaptureContext, egress: Egress): Promise<void> {
  const { page, params } = ctx;
  const session = ctx.state.get('egress');
  const idleLimit = params.wait_until === 'networkidle0' ? 0 : params.wait_until === 'networkidle2' ? 2 : undefined;
  const tracker = idleLimit === undefined ? undefined : trackInflight(page);
  try {
    const waitUntil = params.wait_until === 'load' ? 'load' : 'domcontentloaded';
    const response = await abortable(page.goto(params.url, { waitUntil, timeout: 0 }), ctx.signal).catch((error: unknown) => {
      if (egress.wasRefused(session, page.url()) || egress.wasRefused(session, params.url)) throw urlNotAllowed(params.url);
      throw toCaptureError(error);
    });
    const finalUrl = response?.url() ?? page.url();
    if (egress.wasRefused(session, finalUrl)) throw urlNotAllowed(finalUrl);
    ctx.response = response ? { status: response.status(), url: finalUrl } : null;
    if (tracker && idleLimit !== undefined) await tracker.waitForIdle(idleLimit, NETWORK_IDLE_MS, ctx.signal);
  } finally {
    tracker?.detach();
  }
}
