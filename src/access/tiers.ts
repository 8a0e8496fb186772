import { CaptureError } from '../core/errors/catalogue.js';
import { parseCaptureParams, type CaptureParams } from '../core/schema/capture-params.js';
import { FORMATS, isVideoFormat, type CaptureFormat } from '../core/schema/formats.js';
import { actionsRunScript } from '../core/schema/action-params.js';

export const TIER_NAMES = ['FREE', 'BASIC', 'PRO', 'ENTERPRISE'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierLimits {
  /** Requests per minute (every request with a valid key counts). */
  requestsPerMinute: number;
  /** Successful captures per calendar month (UTC). */
  monthlyQuota: number;
  /** Longest video in seconds. */
  maxDuration: number;
  /** Whether latitude/longitude may be set. */
  geolocation: boolean;
  /** Tallest full-page image in px: the default of `full_page_max_height` and its largest value. */
  maxFullPageHeight: number;
  /** Whether `scripts`, `wait_for_function`, `init_scripts` and `script_urls` (the caller's JavaScript in the page) may be set. */
  scripts: boolean;
  /** Largest `device_scale_factor` (1..4); each step up multiplies the pixels rendered and encoded. */
  maxDeviceScaleFactor: number;
  /** Highest `fps` of a video (10..60): each frame is rendered and encoded. */
  maxFps: number;
  /** Whether `proxy` may be set: a caller's own proxy, or one of the operator's by name. */
  proxy: boolean;
  /** Output formats allowed (pdf and gif cost the most CPU). */
  formats: readonly CaptureFormat[];
  /** Most of one account's captures running at once on a service or a worker (0: no cap); the others wait their turn. */
  maxConcurrent: number;
  /** Most items in one `POST {base}/v1/bulk` batch. */
  maxBulkItems: number;
  /**
   * Seconds of browser time an account's captures may hold in an hour, failed ones included:
   * failures give their quota back, so without this a key could keep its browsers busy for free.
   */
  browserSecondsPerHour: number;
  /** Most pages of a printed PDF: the default of `pdf_max_pages` and its largest value. */
  maxPdfPages: number;
  /** Largest printed PDF in bytes: the default of `pdf_max_bytes` and its largest value. */
  maxPdfBytes: number;
}

const ALL_FORMATS = Object.freeze(Object.keys(FORMATS) as CaptureFormat[]);
/** The expensive options, open to every tier unless the `tiers` option closes them. */
const EXPENSIVE_ALLOWED = { scripts: true, maxDeviceScaleFactor: 4, formats: ALL_FORMATS } as const;

/** The tier table of docs/http-service.md; every number can be overridden with the `tiers` option. */
export const DEFAULT_TIERS: Readonly<Record<TierName, TierLimits>> = Object.freeze({
  FREE: { requestsPerMinute: 20, monthlyQuota: 100, maxDuration: 10, geolocation: false, maxFullPageHeight: 32_000, maxFps: 30, proxy: false, maxConcurrent: 2, maxBulkItems: 10, browserSecondsPerHour: 600, maxPdfPages: 100, maxPdfBytes: 20 * 1024 ** 2, ...EXPENSIVE_ALLOWED },
  BASIC: { requestsPerMinute: 40, monthlyQuota: 2_000, maxDuration: 30, geolocation: false, maxFullPageHeight: 64_000, maxFps: 30, proxy: false, maxConcurrent: 4, maxBulkItems: 100, browserSecondsPerHour: 1_800, maxPdfPages: 300, maxPdfBytes: 100 * 1024 ** 2, ...EXPENSIVE_ALLOWED },
  PRO: { requestsPerMinute: 80, monthlyQuota: 10_000, maxDuration: 300, geolocation: true, maxFullPageHeight: 150_000, maxFps: 60, proxy: true, maxConcurrent: 8, maxBulkItems: 500, browserSecondsPerHour: 7_200, maxPdfPages: 2_000, maxPdfBytes: 512 * 1024 ** 2, ...EXPENSIVE_ALLOWED },
  ENTERPRISE: { requestsPerMinute: 150, monthlyQuota: 100_000, maxDuration: 1800, geolocation: true, maxFullPageHeight: 300_000, maxFps: 60, proxy: true, maxConcurrent: 16, maxBulkItems: 1_000, browserSecondsPerHour: 36_000, maxPdfPages: 10_000, maxPdfBytes: 1024 ** 3, ...EXPENSIVE_ALLOWED },
});

export type Tiers = Readonly<Record<TierName, TierLimits>>;

export function resolveTiers(overrides: Partial<Record<TierName, Partial<TierLimits>>> = {}): Tiers {
  return Object.freeze(
    Object.fromEntries(TIER_NAMES.map((name) => [name, Object.freeze({ ...DEFAULT_TIERS[name], ...overrides[name] })])) as Record<TierName, TierLimits>,
  );
}

export function isTierName(value: string): value is TierName {
  return (TIER_NAMES as readonly string[]).includes(value);
}

/** The cheapest tier that allows `allows`, for the `required` detail of TIER_RESTRICTED. */
function cheapestTier(tiers: Tiers, allows: (limits: TierLimits) => boolean): TierName | undefined {
  return TIER_NAMES.find((name) => allows(tiers[name]));
}

/**
 * The parameters as the caller's tier allows them: what it does not include is refused
 * (geolocation below PRO, videos longer or full pages taller than allowed), and the tier's
 * full-page height and, for a PDF, its pages and bytes become the defaults.
 */
export function applyTier(params: CaptureParams, tier: TierName, tiers: Tiers): CaptureParams {
  checkTierGates(params, tier, tiers);
  const limits = tiers[tier];
  const defaults: Partial<CaptureParams> = {};
  if (params.full_page_max_height === undefined) defaults.full_page_max_height = limits.maxFullPageHeight;
  if (params.format === 'pdf' && params.pdf_max_pages === undefined) defaults.pdf_max_pages = limits.maxPdfPages;
  if (params.format === 'pdf' && params.pdf_max_bytes === undefined) defaults.pdf_max_bytes = limits.maxPdfBytes;
  return Object.keys(defaults).length === 0 ? params : parseCaptureParams({ ...params, ...defaults });
}

/** Refuses what the caller's tier does not include. */
export function checkTierGates(params: CaptureParams, tier: TierName, tiers: Tiers): void {
  const limits = tiers[tier];
  if (params.latitude !== undefined && !limits.geolocation) {
    throw new CaptureError('TIER_RESTRICTED', `Geolocation is not available on the ${tier} tier`, {
      details: { param: 'latitude', tier, required: cheapestTier(tiers, (t) => t.geolocation) ?? 'PRO' },
    });
  }
  if (isVideoFormat(params.format) && params.duration > limits.maxDuration) {
    throw new CaptureError('TIER_RESTRICTED', `duration ${params.duration} s exceeds the ${tier} tier maximum of ${limits.maxDuration} s`, {
      details: {
        param: 'duration',
        tier,
        required: cheapestTier(tiers, (t) => t.maxDuration >= params.duration) ?? 'ENTERPRISE',
        max: limits.maxDuration,
      },
    });
  }
  if (!limits.formats.includes(params.format)) {
    throw new CaptureError('TIER_RESTRICTED', `format ${params.format} is not available on the ${tier} tier`, {
      details: { param: 'format', tier, required: cheapestTier(tiers, (t) => t.formats.includes(params.format)) ?? 'ENTERPRISE' },
    });
  }
  // A condition waited for is the caller's JavaScript in the page as much as a script is.
  for (const param of ['scripts', 'wait_for_function', 'init_scripts', 'script_urls'] as const) {
    if (params[param] !== undefined && !limits.scripts) {
      throw new CaptureError('TIER_RESTRICTED', `${param} is not available on the ${tier} tier`, {
        details: { param, tier, required: cheapestTier(tiers, (t) => t.scripts) ?? 'ENTERPRISE' },
      });
    }
  }
  if (params.proxy !== undefined && !limits.proxy) {
    throw new CaptureError('TIER_RESTRICTED', `proxy is not available on the ${tier} tier`, {
      details: { param: 'proxy', tier, required: cheapestTier(tiers, (t) => t.proxy) ?? 'PRO' },
    });
  }
  if (actionsRunScript(params.actions) && !limits.scripts) {
    throw new CaptureError('TIER_RESTRICTED', `evaluate actions are not available on the ${tier} tier`, {
      details: { param: 'actions', tier, required: cheapestTier(tiers, (t) => t.scripts) ?? 'ENTERPRISE' },
    });
  }
  const scale = params.device_scale_factor ?? 1;
  if (scale > limits.maxDeviceScaleFactor) {
    // A device brings its own scale: the refusal names what the caller sent, and how to go on.
    const fromDevice = params.device !== undefined;
    const message = fromDevice
      ? `device '${params.device}' renders at a scale of ${scale}, over the ${tier} tier maximum of ${limits.maxDeviceScaleFactor}: give device_scale_factor=${limits.maxDeviceScaleFactor} with it`
      : `device_scale_factor ${scale} exceeds the ${tier} tier maximum of ${limits.maxDeviceScaleFactor}`;
    throw new CaptureError('TIER_RESTRICTED', message, {
      details: { param: fromDevice ? 'device' : 'device_scale_factor', tier, required: cheapestTier(tiers, (t) => t.maxDeviceScaleFactor >= scale) ?? 'ENTERPRISE', max: limits.maxDeviceScaleFactor },
    });
  }
  if (params.fps !== undefined && params.fps > limits.maxFps) {
    throw new CaptureError('TIER_RESTRICTED', `fps ${params.fps} exceeds the ${tier} tier maximum of ${limits.maxFps}`, {
      details: { param: 'fps', tier, required: cheapestTier(tiers, (t) => t.maxFps >= (params.fps as number)) ?? 'ENTERPRISE', max: limits.maxFps },
    });
  }
  const height = params.full_page_max_height;
  if (height !== undefined && height > limits.maxFullPageHeight) {
    throw new CaptureError('TIER_RESTRICTED', `full_page_max_height ${height} px exceeds the ${tier} tier maximum of ${limits.maxFullPageHeight} px`, {
      details: { param: 'full_page_max_height', tier, required: cheapestTier(tiers, (t) => t.maxFullPageHeight >= height) ?? 'ENTERPRISE', max: limits.maxFullPageHeight },
    });
  }
  checkPdfLimits(params, tier, tiers);
}

/** Refuses a PDF limit above the tier's (`pdf_max_pages`, `pdf_max_bytes`). */
function checkPdfLimits(params: CaptureParams, tier: TierName, tiers: Tiers): void {
  for (const [param, key, unit] of [['pdf_max_pages', 'maxPdfPages', 'pages'], ['pdf_max_bytes', 'maxPdfBytes', 'bytes']] as const) {
    const asked = params[param];
    const max = tiers[tier][key];
    if (asked === undefined || asked <= max) continue;
    throw new CaptureError('TIER_RESTRICTED', `${param} ${asked.toLocaleString('en-US')} ${unit} exceeds the ${tier} tier maximum of ${max.toLocaleString('en-US')} ${unit}`, {
      details: { param, tier, required: cheapestTier(tiers, (t) => t[key] >= asked) ?? 'ENTERPRISE', max },
    });
  }
}

/** Refuses a batch larger than the caller's tier allows (`maxBulkItems`). */
export function checkBulkSize(count: number, tier: TierName, tiers: Tiers): void {
  const max = tiers[tier].maxBulkItems;
  if (count <= max) return;
  throw new CaptureError('TIER_RESTRICTED', `A batch of ${count} items exceeds the ${tier} tier maximum of ${max}`, {
    details: { param: 'items', tier, required: cheapestTier(tiers, (t) => t.maxBulkItems >= count) ?? 'ENTERPRISE', max },
  });
}
