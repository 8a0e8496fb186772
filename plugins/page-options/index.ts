import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { mediaFeaturesStage } from './media-features.js';
import { headerScope } from '../../src/core/schema/header-scope-params.js';
import { matchesGlob } from '../shared/url-glob.js';

/**
 * How the page is emulated, set on the capture's own page before it navigates: device scale
 * factor, mobile and touch, dark mode, reduced motion, CSS media type, user agent, locale and time zone. Each context is fresh, so
 * nothing leaks into the next capture.
 */
export function pageOptions(): CapturePlugin {
  return {
    name: 'page-options',
    stages: [
      {
        name: 'emulate',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) =>
          params.device_scale_factor !== undefined ||
          params.is_mobile ||
          params.has_touch ||
          params.dark_mode ||
          params.reduced_motion ||
          params.media_type !== undefined ||
          params.user_agent !== undefined ||
          params.locale !== undefined ||
          params.timezone !== undefined,
        run: emulate,
      },
      mediaFeaturesStage,
      {
        // Set again once the page is there: the navigation to the target can drop the media type
        // set on the blank page (measured: print media was gone after a goto), while the colour
        // scheme and motion preferences stay.
        name: 'media',
        phase: 'settle',
        leavesContextState: true,
        when: (params) => params.media_type !== undefined,
        run: ({ page, params }) => page.emulateMedia({ media: params.media_type }),
      },
      {
        name: 'cookies',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => params.cookies !== undefined && params.cookies.length > 0,
        run: setCookies,
      },
      {
        name: 'headers',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => params.headers !== undefined && Object.keys(params.headers).length > 0,
        run: sendHeadersToTarget,
      },
    ],
  };
}

async function emulate(ctx: CaptureContext): Promise<void> {
  const { cdp, page, params } = ctx;
  if (params.device_scale_factor !== undefined || params.is_mobile) {
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: params.viewport_width,
      height: params.viewport_height,
      deviceScaleFactor: params.device_scale_factor ?? 1,
      mobile: params.is_mobile,
    });
  }
  if (params.has_touch) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  if (params.dark_mode || params.reduced_motion || params.media_type !== undefined) {
    await page.emulateMedia({
      ...(params.dark_mode ? { colorScheme: 'dark' as const } : {}),
      ...(params.reduced_motion ? { reducedMotion: 'reduce' as const } : {}),
      ...(params.media_type === undefined ? {} : { media: params.media_type }),
    });
  }
  if (params.user_agent !== undefined || params.locale !== undefined) {
    // The context's own (the engine's, capture-engine/<version> included) when only the locale changes.
    const userAgent = params.user_agent ?? (await page.evaluate(() => navigator.userAgent));
    await cdp.send('Emulation.setUserAgentOverride', { userAgent, ...(params.locale ? { acceptLanguage: params.locale } : {}) });
  }
  if (params.locale !== undefined) await cdp.send('Emulation.setLocaleOverride', { locale: params.locale });
  if (params.timezone !== undefined) await cdp.send('Emulation.setTimezoneOverride', { timezoneId: params.timezone });
}

/** The caller's cookies, for the target's host only (never a parent domain, never third parties). */
async function setCookies({ browserContext, params, target: address }: CaptureContext): Promise<void> {
  const target = new URL(address);
  await browserContext.addCookies(
    (params.cookies ?? []).map(({ name, value, path, secure, httpOnly, sameSite }) => ({
      name,
      value,
      domain: target.hostname,
      path: path ?? '/',
      secure: secure ?? target.protocol === 'https:',
      httpOnly: httpOnly ?? false,
      sameSite: sameSite ?? 'Lax',
    })),
  );
}

/**
 * The caller's extra headers, each on requests to the target's origin only, or to those
 * `headers_scope` names for it: a third party the page loads never sees one unless the caller
 * says so. Requests are intercepted only when headers were asked for.
 */
async function sendHeadersToTarget({ page, params, target }: CaptureContext): Promise<void> {
  const origin = new URL(target).origin;
  const scoped = Object.entries(params.headers ?? {}).map(([name, value]) => ({ name, value, scope: headerScope(params.headers_scope, name) }));
  const reaching = (url: URL) => scoped.filter(({ scope }) => (scope === undefined ? url.origin === origin : scope.some((pattern) => matchesGlob(pattern, url.href))));
  await page.route(
    (url) => reaching(url).length > 0,
    (route) => route.fallback({ headers: { ...route.request().headers(), ...Object.fromEntries(reaching(new URL(route.request().url())).map(({ name, value }) => [name, value])) } }),
  );
}
