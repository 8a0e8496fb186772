import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { injectedUrls } from '../../src/core/schema/injection-params.js';
import { runModuleScript } from '../shared/module-script.js';

/**
 * What the caller injects beyond `styles` and `scripts`: `init_scripts` before the page's own
 * scripts, and stylesheets and scripts by URL once the page is ready, before the inline ones (which
 * may then use what they loaded). The URLs are requests of the page: they go through the egress
 * guard as any of its requests, after the engine checked them before the capture began.
 */
export function pageInjections(): CapturePlugin {
  return {
    name: 'page-injections',
    stages: [
      {
        name: 'init-scripts',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => params.init_scripts !== undefined,
        run: async ({ page, params }) => void (await page.addInitScript({ content: params.init_scripts as string })),
      },
      {
        name: 'style-urls',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.style_urls !== undefined,
        run: (ctx) => addInOrder(ctx, 'style_urls', (url) => ctx.page.addStyleTag({ url })),
      },
      {
        name: 'script-urls',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.script_urls !== undefined,
        // A module is imported by an inline one, which goes on only once it has run to its end (top-level
        // `await` included); a module script tag's `load` comes before that.
        run: (ctx) => addInOrder(ctx, 'script_urls', (url) => (ctx.params.scripts_type === 'module' ? runModuleScript(ctx.page, `import ${JSON.stringify(url)};`) : ctx.page.addScriptTag({ url }))),
      },
    ],
  };
}

/** Adds each URL's tag in turn, each once it has loaded; one that does not load fails the capture, naming it. */
async function addInOrder(ctx: CaptureContext, param: 'style_urls' | 'script_urls', add: (url: string) => Promise<unknown>): Promise<void> {
  for (const url of injectedUrls(ctx.params[param])) {
    try {
      await add(url);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      throw captureErrors.captureFailed(param, `${param}: ${url} could not be loaded or run in the page`, error);
    }
  }
}
