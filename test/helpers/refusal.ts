import { parseCaptureParams } from '../../src/core/schema/capture-params.js';

/** The error parseCaptureParams throws for `raw` on top of a valid url; fails the test when it takes them. */
export function refusal(raw: Record<string, unknown>, url = 'https://example.com/'): unknown {
  try {
    parseCaptureParams({ url, ...raw });
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}
