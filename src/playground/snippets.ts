// The playground's request written out for the user to copy: as curl and as a call of the typed
// client. Pure text: the page shows it, the tests run it.

/** What a request is: where the service answers and the parameters that differ from the defaults. */
export interface RequestShape {
  /** e.g. `http://localhost:3000` */
  origin: string;
  /** The service's basePath, e.g. `/api`. */
  basePath: string;
  params: Record<string, unknown>;
  /** Whether the user gave a key: the snippets then read it from `$CAPTURE_API_KEY`. */
  keyed: boolean;
}

/** How the service answers these parameters. */
export type AnswerKind = 'file' | 'json' | 'queued';

export function answerKind(params: Record<string, unknown>): AnswerKind {
  if (params.async === true) return 'queued';
  return params.response_type === 'json' ? 'json' : 'file';
}

/** The file name the snippets write a capture to: `capture.<format>`. */
export function outputName(params: Record<string, unknown>): string {
  const format = typeof params.format === 'string' ? params.format.toLowerCase() : 'png';
  return `capture.${format === 'jpeg' ? 'jpg' : format}`;
}

/** A word for a POSIX shell: single-quoted unless it needs no quoting. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `curl` sending the same POST the playground sends, the key read from the environment. */
export function curlCommand({ origin, basePath, params, keyed }: RequestShape): string {
  const lines = [`curl ${shellWord(`${origin}${basePath}/v1/capture`)}`];
  const comment = keyed ? '# needs CAPTURE_API_KEY set to your key\n' : '';
  // Double quotes: the shell fills in the key, which then never shows on the page or in a history of URLs.
  if (keyed) lines.push(`-H "X-API-Key: $CAPTURE_API_KEY"`);
  lines.push(`-H 'Content-Type: application/json'`, `--data-binary ${shellWord(JSON.stringify(params))}`);
  lines.push(answerKind(params) === 'file' ? `-o ${outputName(params)}` : '--fail-with-body');
  return `${comment}${lines.join(' \\\n  ')}`;
}

/** The same request with `capture-engine/client`. */
export function clientCall({ origin, basePath, params, keyed }: RequestShape): string {
  const options = [`baseUrl: ${JSON.stringify(origin)}`, ...(basePath === '/api' ? [] : [`basePath: ${JSON.stringify(basePath)}`]), ...(keyed ? ['apiKey: process.env.CAPTURE_API_KEY'] : [])];
  const { async: _async, response_type: _responseType, ...rest } = params;
  const args = objectLiteral(rest);
  const call = {
    file: `await client.captureToFile(${args}, ${JSON.stringify(outputName(params))});`,
    json: `const stored = await client.captureJson(${args});`,
    queued: `const { id } = await client.captureAsync(${args});\nconst status = await client.waitFor(id);`,
  }[answerKind(params)];
  return `import { createCaptureClient } from 'capture-engine/client';\n\nconst client = createCaptureClient({ ${options.join(', ')} });\n${call}`;
}

/** JSON written as a JavaScript object literal: names that are identifiers lose their quotes. */
function objectLiteral(value: Record<string, unknown>): string {
  if (Object.keys(value).length === 0) return '{}';
  return JSON.stringify(value, null, 2).replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, '$1$2:');
}
