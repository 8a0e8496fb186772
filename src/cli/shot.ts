import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createCaptureEngine } from '../create-capture-engine.js';
import { baseOptions } from './options-from-env.js';

/** `capture-engine shot <url> -o <file>`: one capture, no server. */
export async function shot(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      format: { type: 'string' },
      width: { type: 'string' },
      height: { type: 'string' },
      'full-page': { type: 'boolean' },
      quality: { type: 'string' },
      'wait-until': { type: 'string' },
      delay: { type: 'string' },
      'hide-selectors': { type: 'string' },
      'block-ads': { type: 'boolean' },
      'block-cookies': { type: 'boolean' },
      scenario: { type: 'string' },
      duration: { type: 'string' },
      'allow-private-networks': { type: 'boolean' },
      'storage-dir': { type: 'string' },
    },
  });
  const url = positionals[0];
  if (!url || !values.output) throw new Error('usage: capture-engine shot <url> -o <file> [options]');
  const engine = await createCaptureEngine(baseOptions(values['allow-private-networks'], values['storage-dir']));
  try {
    const result = await engine.capture({
      url,
      format: values.format,
      viewport_width: values.width,
      viewport_height: values.height,
      full_page: values['full-page'],
      quality: values.quality,
      wait_until: values['wait-until'],
      delay: values.delay,
      hide_selectors: values['hide-selectors'],
      block_ads: values['block-ads'],
      block_cookies: values['block-cookies'],
      scenario: values.scenario,
      duration: values.duration,
    });
    if (result.data) await writeFile(values.output, result.data);
    else await pipeline(result.stream(), createWriteStream(values.output));
    await result.dispose();
    process.stdout.write(`${values.output}: ${result.format}, ${result.size} bytes\n`);
  } finally {
    await engine.close();
  }
}
