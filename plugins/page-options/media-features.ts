import type { CaptureContext, Stage } from '../../src/core/plugin-api.js';
import { mediaFeatures } from '../../src/core/schema/media-feature-params.js';

/**
 * `media_features`: forced colours and contrast through Playwright (which sends every feature it
 * knows on each `emulateMedia`, so they must be its own or a later call would reset them);
 * reduced transparency, which Playwright never sends, straight through Chromium.
 */
export const mediaFeaturesStage: Stage = {
  name: 'media-features',
  phase: 'prepare',
  leavesContextState: true,
  when: (params) => params.media_features !== undefined,
  run: emulateMediaFeatures,
};

async function emulateMediaFeatures({ cdp, page, params }: CaptureContext): Promise<void> {
  const features = mediaFeatures(params.media_features as string) ?? new Map<string, string>();
  const transparency = features.get('prefers-reduced-transparency');
  if (transparency !== undefined) {
    await cdp.send('Emulation.setEmulatedMedia', { ...(params.media_type ? { media: params.media_type } : {}), features: [{ name: 'prefers-reduced-transparency', value: transparency }] });
  }
  const forcedColors = features.get('forced-colors') as 'active' | 'none' | undefined;
  const contrast = features.get('prefers-contrast') as 'more' | 'no-preference' | undefined;
  if (forcedColors !== undefined || contrast !== undefined) await page.emulateMedia({ ...(forcedColors ? { forcedColors } : {}), ...(contrast ? { contrast } : {}) });
}
