import { createCaptureEngine } from '../create-capture-engine.js';
import type { CaptureEngine } from '../core/engine.js';
import type { CaptureStorage } from '../core/storage.js';
import { baseOptions } from './options-from-env.js';
import { browserArgs } from './browser-args.js';
import { LocalFiles } from './local-files.js';
import { pageHooks, type PageHooks } from './page-hooks.js';
import { readStorageState } from './storage-state.js';

/** One engine for a command's shots, with the CLI's own stages on its pages. */
export interface ShotSession {
  engine: CaptureEngine;
  hooks: PageHooks;
}

/**
 * The CLI writes every file itself. A capture that must go through the engine's store to have its
 * HAR made (`har` needs `response_type=json`) is stored nowhere: its HAR is taken on the way.
 */
const NOWHERE: CaptureStorage = { name: 'cli', put: () => Promise.resolve(), get: () => Promise.resolve(undefined) };

/** The session the command line asks for, its pages let through to `localFiles`: `--browser-arg`, `--log-console`, `--log-requests`, `--bypass-csp`, `-a`. */
export async function openSession(own: Record<string, unknown>, localFiles: LocalFiles, usage: string, { shots }: { shots: number }): Promise<ShotSession> {
  const args = browserArgs((own['browser-arg'] as string[] | undefined) ?? [], usage);
  const storageState = typeof own.auth === 'string' ? await readStorageState(own.auth) : undefined;
  const hooks = pageHooks({ logConsole: own['log-console'] === true, logRequests: own['log-requests'] as string | undefined, bypassCsp: own['bypass-csp'] === true, storageState });
  const base = baseOptions(own['allow-private-networks'] === true, own['storage-dir'] as string | undefined);
  const allowed = base.allowAddress as ((address: string, port: number) => boolean) | undefined;
  // Shots run one after another: one slot, and a context warmed for the next shot only when there is one.
  const engine = await createCaptureEngine({
    ...base,
    concurrency: 1,
    warmContexts: shots > 1 ? 1 : 0,
    browserArgs: args,
    plugins: [hooks.plugin],
    allowAddress: (address, port) => localFiles.allows(address, port) || (allowed?.(address, port) ?? false),
    ...(wantsHar(own) ? { storage: NOWHERE } : {}),
  });
  return { engine, hooks };
}

/** shot-scraper's `--har`, `--har-zip` and `--har-file`: the HAR of every page, in one file. */
export function wantsHar(own: Record<string, unknown>): boolean {
  return own.har === true || own['har-zip'] === true || own['har-file'] !== undefined;
}
