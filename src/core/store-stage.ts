import type { CapturePlugin } from './plugin-api.js';
import type { CaptureStorage } from './storage.js';
import { fileTypeOf } from './capture-result.js';
import { captureErrors } from './errors/factories.js';

/**
 * Stores the finished file when the caller asked for `response_type=json`, under `<date>/<id>.<ext>`,
 * and its sidecars beside it, under `<date>/<id>-<name>.<ext>`.
 */
export function storeStage(storage: CaptureStorage | undefined, fileUrl: (key: string) => string): CapturePlugin {
  return {
    name: 'store',
    stages: [
      {
        name: 'put',
        phase: 'store',
        leavesContextState: false,
        when: (params) => params.response_type === 'json',
        run: async (ctx) => {
          const output = ctx.output;
          if (!output) throw captureErrors.internal('Nothing to store');
          if (!storage) throw captureErrors.internal('response_type=json needs a storage, and the engine has none');
          const { contentType, extension } = fileTypeOf(output);
          const folder = new Date().toISOString().slice(0, 10);
          const key = `${folder}/${ctx.id}.${extension}`;
          // The capture's signal: a capture that fails or is aborted while storing abandons its upload.
          await storage.put(key, { data: output.data, path: output.path }, { contentType, size: output.size }, { signal: ctx.signal });
          ctx.stored = { key, url: fileUrl(key) };
          if (ctx.sidecars.length === 0) return;
          const sidecars: Record<string, { key: string; url: string }> = {};
          for (const sidecar of ctx.sidecars) {
            const sidecarKey = `${folder}/${ctx.id}-${sidecar.name}.${sidecar.extension}`;
            await storage.put(sidecarKey, { data: sidecar.data }, { contentType: sidecar.contentType, size: sidecar.data.length }, { signal: ctx.signal });
            sidecars[sidecar.name] = { key: sidecarKey, url: fileUrl(sidecarKey) };
          }
          ctx.stored.sidecars = sidecars;
        },
      },
    ],
    close: () => storage?.close?.(),
  };
}
