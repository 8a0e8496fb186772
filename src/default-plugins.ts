import type { CapturePlugin } from './types.js';
import type { ResolvedEngineOptions } from './options.js';
import { geolocation } from '../plugins/geolocation/index.js';
import { hideSelectors } from '../plugins/hide-selectors/index.js';
import { blockAds } from '../plugins/block-ads/index.js';
import { blockCookies } from '../plugins/block-cookies/index.js';
import { staticScenario } from '../plugins/scenario-static/index.js';
import { encodeImage } from '../plugins/encode-image/index.js';
import { scrollScenario } from '../plugins/scenario-scroll/index.js';
import { recordScenario } from '../plugins/scenario-record/index.js';
import { encodeVideo } from '../plugins/encode-video/index.js';
import type { CaptureStorage } from './storage.js';
import { storeStage } from './store-stage.js';

/**
 * The built-in plugins, in the order their stages run within a phase. Blocking runs before
 * hiding, so a caller's selectors apply to what blocking left.
 */
export function defaultPlugins(options: Readonly<ResolvedEngineOptions>, storage: CaptureStorage): CapturePlugin[] {
  return [
    geolocation(),
    blockAds(options.adBlocking),
    blockCookies(options.cookieBanners),
    hideSelectors(),
    staticScenario({ maxFullPageHeight: options.maxFullPageHeight }),
    encodeImage(),
    scrollScenario(),
    recordScenario(),
    encodeVideo(),
    storeStage(storage, `${options.basePath}/files`),
  ];
}
