import { describe, expect, it } from 'vitest';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { HTTP_DEFAULTS } from '../../src/http/http-options.js';
import { UPLOAD_DEFAULTS } from '../../src/http/multipart-body.js';
import { payloadTooLarge } from '../../src/http/http-errors.js';

// Issue 50, item 8: the parameter table said html holds "at most 67108864 characters", while a
// JSON or form body holds 64 KiB, and the 413 did not say where a larger document goes.
describe('the limits of a document, as the table and the 413 say them', () => {
  it('agree with the HTTP service\'s defaults', () => {
    for (const name of ['html', 'markdown', 'markdown_template'] as const) {
      const allowed = allowedFor(name);
      expect(allowed).toContain(`${HTTP_DEFAULTS.bodyLimit / 1024} KiB in a JSON or form body (bodyLimit)`);
      expect(allowed).toContain(`${UPLOAD_DEFAULTS.fileBytes / 2 ** 20} MiB as a multipart/form-data field or file (uploadLimits.fileBytes)`);
    }
    const refusal = payloadTooLarge(HTTP_DEFAULTS.bodyLimit, UPLOAD_DEFAULTS.fileBytes);
    expect(refusal.message).toContain(`exceeds ${HTTP_DEFAULTS.bodyLimit} bytes`);
    expect(refusal.message).toContain("multipart/form-data, a field (curl -F 'markdown=<README.md')");
    expect(refusal.details).toEqual({ limit: HTTP_DEFAULTS.bodyLimit, upload_limit: UPLOAD_DEFAULTS.fileBytes });
  });
});
