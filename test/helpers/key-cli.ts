import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BUILT_CLI } from './built-service.js';

/** A key `keys create` made: the key, its public id and the signing secret of its render links. */
export interface Account {
  key: string;
  id: string;
  signingSecret: string;
}

// Asynchronous: a CLI run that blocked this process would leave its kept-alive sockets to the
// service unread, and a request on one the service closed meanwhile fails.
const run = promisify(execFile);

/** The built CLI on the key file `keysFile`, as an operator runs it. */
export function keysCli(keysFile: string): { cli: (...args: string[]) => Promise<string>; createKey: (tier: string, ...flags: string[]) => Promise<Account> } {
  const cli = async (...args: string[]): Promise<string> => (await run(process.execPath, [BUILT_CLI, ...args], { env: { ...process.env, CAPTURE_KEYS_FILE: keysFile }, encoding: 'utf8' })).stdout;
  return {
    cli,
    /** `keys create` prints the key, then its signing secret. */
    async createKey(tier, ...flags) {
      const [key = '', signingSecret = ''] = (await cli('keys', 'create', '--tier', tier, ...flags)).trim().split('\n');
      return { key, id: key.slice(0, 'ce_'.length + 8), signingSecret };
    },
  };
}
