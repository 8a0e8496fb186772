import { CaptureError } from '../../core/errors/catalogue.js';
import { captureErrors } from '../../core/errors/factories.js';
import { toCaptureError } from '../../core/errors/to-capture-error.js';
import type { CaptureParams } from '../../core/schema/capture-params.js';
import type { BulkItem } from '../async-captures-port.js';
import type { ParamBag } from '../request-body.js';

/** A batch as the caller sent it, every item validated. */
export interface BulkBody {
  items: BulkItem[];
  /** Told once the whole batch is settled. */
  webhookUrl?: string;
}

/** What a batch's body may hold besides capture parameters (`api_key` authenticates, as on `/capture`). */
const FIELDS = new Set(['defaults', 'items', 'webhook_url', 'api_key']);
const ITEM_ID = /^[\x20-\x7e]{1,200}$/;

const isObject = (value: unknown): value is ParamBag => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `{ defaults, items: [ url | { url, ...overrides, id? } ], webhook_url? }`: each item is its
 * defaults with its own parameters over them, an asynchronous capture (its own `webhook_url` is
 * its per-item webhook), parsed and fitted to the tier by `parse`. One bad
 * item refuses the batch, its error naming the item's `index`. `checkSize` runs before any item is
 * parsed: a batch too large is refused whatever it holds.
 */
export function parseBulkBody(body: ParamBag, parse: (bag: ParamBag) => CaptureParams, checkSize: (count: number) => void): BulkBody {
  for (const name of Object.keys(body)) {
    if (!FIELDS.has(name)) throw captureErrors.invalidParameter(name, `Unknown batch field '${name}': capture parameters go in 'defaults' or in an item`, 'defaults, items, webhook_url');
  }
  const { defaults = {}, items, webhook_url: webhookUrl } = body;
  if (!isObject(defaults)) throw captureErrors.invalidParameter('defaults', "'defaults' must be an object of capture parameters", 'an object');
  if (!Array.isArray(items) || items.length === 0) throw captureErrors.invalidParameter('items', "'items' must be a non-empty array of URLs or objects", 'a non-empty array');
  if (webhookUrl !== undefined && typeof webhookUrl !== 'string') throw captureErrors.invalidParameter('webhook_url', "'webhook_url' must be a URL", 'an http(s) URL');
  checkSize(items.length);
  return { items: items.map((item: unknown, index) => parseItem(item, index, defaults, parse)), ...(webhookUrl === undefined ? {} : { webhookUrl }) };
}

function parseItem(item: unknown, index: number, defaults: ParamBag, parse: (bag: ParamBag) => CaptureParams): BulkItem {
  try {
    if (typeof item === 'string') return { params: parse({ ...defaults, url: item, async: true }) };
    if (!isObject(item)) throw captureErrors.invalidParameter('items', 'An item must be a URL or an object of capture parameters', 'a URL or an object');
    const { id: itemId, ...own } = item;
    if (itemId !== undefined && (typeof itemId !== 'string' || !ITEM_ID.test(itemId))) throw captureErrors.invalidParameter('id', "An item's id must be 1 to 200 printable ASCII characters", '1 to 200 printable ASCII characters');
    return { params: parse({ ...defaults, ...own, async: true }), ...(itemId === undefined ? {} : { itemId }) };
  } catch (error) {
    throw itemError(error, index);
  }
}

/** An item's refusal as the batch's: its message and details name the item's index. */
export function itemError(error: unknown, index: number): CaptureError {
  const failure = toCaptureError(error);
  if (!failure.expose) return failure;
  return new CaptureError(failure.code, `items[${index}]: ${failure.message}`, { details: { ...failure.details, index }, headers: failure.headers });
}
