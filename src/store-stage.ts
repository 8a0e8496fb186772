import type { CapturePlugin } from './types.js';
import type { CaptureStorage } from './storage.js';
import { CaptureError } from './errors.js';

/** Stores the finished file when the caller asked for `response_type=json`, under `<date>/<id>.<ext>`. */
export function storeStage(storage: CaptureStorage, filesPath: string): CapturePlugin {
  return {
    name: 'store',
    stages: [
      {
        name: 'put',
        phase: 'store',
        when: (params) => params.response_type === 'json',
        run: async (ctx) => {
          const output = ctx.output;
          if (!output) throw new CaptureError('INTERNAL_ERROR', 'Nothing to store');
          const key = `${new Date().toISOString().slice(0, 10)}/${ctx.id}.${output.extension}`;
          await storage.put(key, { data: output.data, path: output.path }, { contentType: output.contentType, size: output.size });
          ctx.url = `${filesPath}/${key}`;
        },
      },
    ],
    close: () => storage.close?.(),
  };
}
