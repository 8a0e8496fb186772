import type { Page } from 'playwright-core';

/**
 * The caller's JavaScript as an ES module in the page (`scripts_type=module`), awaited until it has
 * run to its end (its imports and top-level `await` included); an error it throws, or an import
 * that fails, rejects with its message.
 */
export async function runModuleScript(page: Page, code: string): Promise<void> {
  await page.evaluate(
    (source) =>
      new Promise<void>((resolve, reject) => {
        const done = `captureEngineModule${Math.random().toString(36).slice(2)}`;
        const onError = (event: ErrorEvent): void => finish(new Error(event.message));
        const finish = (error?: Error): void => {
          removeEventListener('error', onError);
          delete (window as unknown as Record<string, unknown>)[done];
          if (error) reject(error);
          else resolve();
        };
        (window as unknown as Record<string, unknown>)[done] = () => finish();
        addEventListener('error', onError);
        const script = document.createElement('script');
        script.type = 'module';
        // The last statement of the module: reached once everything before it, awaits included, ran.
        script.textContent = `${source}\n;window[${JSON.stringify(done)}]?.();`;
        script.onerror = () => finish(new Error('the module could not be loaded'));
        (document.head ?? document.documentElement).append(script);
      }),
    code,
  );
}
