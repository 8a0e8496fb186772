import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module, in a process of its own: what matters is what reaches stderr before it exits.
const entry = fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));

function stderrOf(script: string): string[] {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `const { consoleLogger } = await import(${JSON.stringify(entry)});\n${script}`], { encoding: 'utf8' });
  return run.stderr.split('\n').filter((line) => line.startsWith('{'));
}

describe('console logger', () => {
  it('writes every line as JSON, also when the process exits right after logging', () => {
    const lines = stderrOf(`const log = consoleLogger(); for (let i = 0; i < 1000; i++) log.info({ n: i }, 'request'); process.exit(0);`);
    expect(lines).toHaveLength(1000);
    expect(lines.map((line) => (JSON.parse(line) as { n: number }).n)).toEqual([...Array(1000).keys()]);
  });

  it('keeps lines logged before an uncaught exception', () => {
    const lines = stderrOf(`const log = consoleLogger(); log.error({ code: 'X' }, 'before the crash'); setTimeout(() => { throw new Error('boom'); }, 5);`);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([expect.objectContaining({ level: 'error', message: 'before the crash', code: 'X' })]);
  });

  it('redacts API keys wherever a logged object carries them', () => {
    const lines = stderrOf(`const log = consoleLogger(); log.info({ apiKey: 'ce_secret_1', headers: { 'x-api-key': 'ce_secret_2' }, request: { api_key: 'ce_secret_3' } }, 'with keys'); process.exit(0);`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/ce_secret/);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ apiKey: '[redacted]', headers: { 'x-api-key': '[redacted]' }, request: { api_key: '[redacted]' } });
  });

  it('leaves out levels below its own', () => {
    const lines = stderrOf(`const log = consoleLogger('warn'); log.info({}, 'quiet'); log.warn({}, 'loud'); process.exit(0);`);
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual(['loud']);
  });
});
