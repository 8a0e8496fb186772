import type { CapturePlugin } from '../src/core/plugin-api.js';
import { geolocation } from './geolocation/index.js';
import { pageOptions } from './page-options/index.js';
import { pageActions } from './page-actions/index.js';
import { pageWaits } from './page-waits/index.js';
import { pageSettle } from './page-settle/index.js';
import { captureRules } from './capture-rules/index.js';
import { botChallenge } from './bot-challenge/index.js';
import { webBotAuth } from './web-bot-auth/index.js';
import type { WebBotAuth } from '../src/core/web-bot-auth.js';
import { diagnostics } from './diagnostics/index.js';
import { hideSelectors } from './hide-selectors/index.js';
import { maskElements } from './mask/index.js';
import { blockAds, blockTrackers, type BlockAdsOptions } from './block-ads/index.js';
import { blockCookies, type BlockCookiesOptions } from './block-cookies/index.js';
import { blockRequests } from './block-requests/index.js';
import { interceptRequests } from './intercept-requests/index.js';
import { pageInjections } from './page-injections/index.js';
import { staticScenario } from './scenario-static/index.js';
import { encodeImage } from './encode-image/index.js';
import { scrollScenario } from './scenario-scroll/index.js';
import { recordScenario } from './scenario-record/index.js';
import { encodeVideo } from './encode-video/index.js';
import { extractContent } from './extract-content/index.js';
import { pdfFinish, type PdfToolPaths } from './pdf-finish/index.js';

export { geolocation, pageOptions, pageSettle, pageWaits, pageActions, captureRules, botChallenge, webBotAuth, diagnostics, hideSelectors, maskElements, blockAds, blockTrackers, blockCookies, blockRequests, interceptRequests, pageInjections, staticScenario, encodeImage, scrollScenario, recordScenario, encodeVideo, extractContent };
export type { BlockAdsOptions, BlockCookiesOptions };
export { pdfFinish, type PdfToolPaths };

/** What the built-in plugins take from `createCaptureEngine`'s options. */
export interface DefaultPluginOptions {
  /** `block_ads` and `block_trackers`: filter lists, prebuilt engine, cache. */
  adBlocking?: BlockAdsOptions;
  /** `block_cookies`: wait limits, extra CMP selectors. */
  cookieBanners?: BlockCookiesOptions;
  /** Tallest full-page image in px. */
  maxFullPageHeight?: number;
  /** Memory one full-page image may take while it is stitched. */
  maxFullPageBytes?: number;
  /** Pages of a long PDF printed at once. */
  pdfRangePages?: number;
  /** ffmpeg executable. */
  ffmpegPath?: string;
  /** Web Bot Auth: the identity every request of the page is signed with. @default none, nothing signed */
  webBotAuth?: WebBotAuth;
  /** Ghostscript, qpdf and the sRGB profile the PDF stages use. */
  pdfTools?: PdfToolPaths;
}

/**
 * The built-in plugins, in the order their stages run within a phase. Blocking runs before the
 * caller's waits and actions (wait, click, styles, scripts) and hiding, so they apply to what
 * blocking left; the failure rules look at the page after all of them, just before the shot.
 */
export function defaultPlugins(options: DefaultPluginOptions = {}): CapturePlugin[] {
  return [
    // First registered, its route runs last: it signs the request as the other routes left it.
    webBotAuth(options.webBotAuth),
    geolocation(),
    pageOptions(),
    pageSettle(),
    // Its only stage follows the navigation: a bot wall is refused before any wait or action.
    botChallenge(),
    blockRequests(),
    blockAds(options.adBlocking),
    blockTrackers(options.adBlocking),
    blockCookies(options.cookieBanners),
    interceptRequests(),
    pageInjections(),
    pageWaits(),
    pageActions(),
    hideSelectors(),
    captureRules(),
    diagnostics(),
    maskElements(),
    staticScenario({ maxFullPageHeight: options.maxFullPageHeight, maxFullPageBytes: options.maxFullPageBytes, pdfRangePages: options.pdfRangePages, pdfTools: options.pdfTools }),
    extractContent(),
    encodeImage(),
    scrollScenario(),
    recordScenario(),
    encodeVideo({ ffmpegPath: options.ffmpegPath }),
    pdfFinish(options.pdfTools),
  ];
}
