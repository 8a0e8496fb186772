import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCaptureEngine } from '../create-capture-engine.js';
import { DEFAULTS } from '../core/defaults.js';
import type { CaptureInput } from '../core/schema/capture-params.js';
import { storedCaptureJson } from '../http/responses.js';
import { captureMcpServer, type RunCapture } from '../http/mcp/mcp-server.js';
import { baseOptions } from './options-from-env.js';
import { serviceSetup } from './service-setup.js';
import { onShutdownSignal } from './shutdown-signal.js';

/**
 * `capture-engine mcp`: the MCP server on stdin and stdout, for a desktop agent, over a local engine
 * built as `serve` builds its own (flags, then the same environment). No keys or tiers: whoever
 * starts the process owns it. Stdout carries the protocol only; logs go to stderr.
 */
export async function mcp(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'storage-dir': { type: 'string' }, 'allow-private-networks': { type: 'boolean' } } });
  const base = baseOptions(values['allow-private-networks'], values['storage-dir']);
  const setup = await serviceSetup(base, undefined, { keys: false });
  // The default storage's folder, named here so that links can point into it.
  const storageDir = path.resolve(base.storageDir ?? path.join(setup.engineOptions.tempDir ?? DEFAULTS.tempDir(), 'files'));
  const fileUrl = (key: string): string => pathToFileURL(path.join(storageDir, key)).href;
  const engine = await createCaptureEngine({ ...setup.engineOptions, storageDir, fileUrl });
  const storage = engine.storage;
  if (!storage) throw new Error('capture-engine mcp needs a storage for the files its tools link to');
  const run: RunCapture = async (params, signal) => {
    const result = await engine.capture(params as CaptureInput, { signal });
    await result.dispose();
    const key = result.storageKey as string;
    // A storage of its own (S3) serves the file at a presigned URL; the local one is a file here.
    const uri = (await storage.get(key))?.redirectUrl ?? fileUrl(key);
    const description = JSON.parse(String(storedCaptureJson({}, { ...result, url: uri }).body)) as Record<string, unknown>;
    return { description, key, uri };
  };
  const server = captureMcpServer(storage, run);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await server.close();
      await engine.close();
      await setup.close();
    })());
  onShutdownSignal(() => void close().then(() => process.exit(0)));
  // The client closing stdin is how a desktop agent stops its servers.
  process.stdin.once('end', () => void close().then(() => process.exit(0)));
  await server.connect(new StdioServerTransport());
}
