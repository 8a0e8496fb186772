import type { CaptureContext, CapturePlugin } from '../../src/core/types.js';

/**
 * How the page is emulated, set on the capture's own page before it navigates: device scale
 * factor, dark mode, reduced motion, user agent, locale and time zone. Each context is fresh, so
 * nothing leaks into the next capture.
 */
export function pageOptions(): CapturePlugin {
  return {
    name: 'page-options',
    stages: [
      {
        name: 'emulate',
        phase: 'prepare',
        when: (params) =>
          params.device_scale_factor !== undefined || params.dark_mode || params.reduced_motion || params.user_agent !== undefined || params.locale !== undefined || params.timezone !== undefined,
        run: emulate,
      },
    ],
  };
}

async function emulate(ctx: CaptureContext): Promise<void> {
  const { cdp, page, params } = ctx;
  if (params.device_scale_factor !== undefined) {
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: params.viewport_width, height: params.viewport_height, deviceScaleFactor: params.device_scale_factor, mobile: false });
  }
  if (params.dark_mode || params.reduced_motion) {
    await page.emulateMedia({ ...(params.dark_mode ? { colorScheme: 'dark' as const } : {}), ...(params.reduced_motion ? { reducedMotion: 'reduce' as const } : {}) });
  }
  if (params.user_agent !== undefined || params.locale !== undefined) {
    const userAgent = params.user_agent ?? (await cdp.send('Browser.getVersion')).userAgent;
    await cdp.send('Emulation.setUserAgentOverride', { userAgent, ...(params.locale ? { acceptLanguage: params.locale } : {}) });
  }
  if (params.locale !== undefined) await cdp.send('Emulation.setLocaleOverride', { locale: params.locale });
  if (params.timezone !== undefined) await cdp.send('Emulation.setTimezoneOverride', { timezoneId: params.timezone });
}
