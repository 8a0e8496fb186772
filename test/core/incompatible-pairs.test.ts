import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

/** The rows of docs/parameters.md's table of parameters that do not go together: the pair, and a query refused for it. */
function documentedPairs(): { pair: string[]; example: string }[] {
  const page = readFileSync(new URL('../../docs/parameters.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('## Parameters that do not go together'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| parameters |')));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names = '', , example = ''] = line.slice(1, -1).split(' | ');
      return { pair: [...names.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] as string), example: /^`(.*)`$/.exec(example.trim())?.[1] ?? '' };
    });
}

/** The error a query string's parameters are refused with (a page URL added when it names no input). */
function refusalOf(query: string): unknown {
  const params = Object.fromEntries(new URLSearchParams(query));
  const input = ['url', 'html', 'markdown', 'files', 'download_from'].some((name) => name in params) ? {} : { url: 'https://example.com/' };
  try {
    parseCaptureParams({ ...input, ...params });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('docs/parameters.md: parameters that do not go together', () => {
  const rows = documentedPairs();

  it('lists the pairs', () => {
    expect(rows.length).toBeGreaterThan(30);
    for (const { pair, example } of rows) expect([pair.length, example.length > 0]).toEqual([2, true]);
  });

  it.each(rows.map((row) => [row.pair.join(' + '), row] as const))('refuses %s as the table says', (_name, { pair, example }) => {
    const error = refusalOf(example);
    expect(error).toBeInstanceOf(CaptureError);
    expect({ code: (error as CaptureError).code, params: [...((error as CaptureError).details?.params as string[])].sort() }).toEqual({ code: 'INCOMPATIBLE_PARAMETERS', params: [...pair].sort() });
  });
});
