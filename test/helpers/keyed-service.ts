import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { startBuiltService, type BuiltService } from './built-service.js';
import { keysCli, type Account } from './key-cli.js';

/** The built service (npm start, node adapter) with accounts of its own in a keys file, and its files in a temp folder. */
export interface KeyedService {
  service: BuiltService;
  /** One account per tier asked for, in order. */
  accounts: Account[];
  /** Stops the service and removes its folder. */
  close: () => Promise<void>;
}

export interface KeyedServiceOptions {
  /** The accounts' tiers. @default ['PRO'] */
  tiers?: string[];
  /** More environment, given the service's folder (for files the service reads from it). */
  env?: (dir: string) => Record<string, string>;
  /** The port to listen on, when the environment must name it beforehand. */
  port?: number;
}

export async function startKeyedService(prefix: string, { tiers = ['PRO'], env, port }: KeyedServiceOptions = {}): Promise<KeyedService> {
  const dir = mkdtempSync(path.join(inject('testTempRoot'), `${prefix}-`));
  const keysFile = path.join(dir, 'keys.json');
  const keys = keysCli(keysFile);
  const accounts = await Promise.all(tiers.map((tier) => keys.createKey(tier)));
  const service = await startBuiltService(
    'node',
    { CAPTURE_KEYS_FILE: keysFile, CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true', CAPTURE_LOG_LEVEL: 'warn', ...env?.(dir) },
    ['--storage-dir', path.join(dir, 'files')],
    port,
  );
  return {
    service,
    accounts,
    close: async () => {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
