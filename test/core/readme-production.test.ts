import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);

/** The README and the docs pages, wherever a section lives now. */
function pages(): string[] {
  const docs = readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md'));
  return [readFileSync(new URL('README.md', ROOT), 'utf8'), ...docs.map((name) => readFileSync(new URL(`docs/${name}`, ROOT), 'utf8'))];
}

/** The text under a heading, to the next heading of the same or a higher level. */
function section(heading: string): string | undefined {
  for (const page of pages()) {
    const match = new RegExp(`^(#+) ${heading}\\n`, 'm').exec(page);
    if (!match) continue;
    const rest = page.slice(match.index + match[0].length);
    // A shell comment in a code block is no heading: blanked out, the offsets kept.
    const prose = rest.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
    const next = new RegExp(`^#{1,${match[1]!.length}} `, 'm').exec(prose);
    return next ? rest.slice(0, next.index) : rest;
  }
  return undefined;
}

// Issue 50, item 14: npm does not pass SIGTERM on to the script it runs, so a supervisor that stops
// `npm start` leaves the server and its Chromium running.
describe('running in production, as the docs say', () => {
  it('starts the CLI itself, not npm start, and says why', () => {
    const text = section('Running in production');
    expect(text).toBeDefined();
    const commands = [...text!.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((match) => match[1]).join('\n');
    expect(commands).toMatch(/capture-engine serve/);
    expect(commands).not.toMatch(/npm start/);
    expect(text).toMatch(/npm start[\s\S]*leaves the server and (its )?Chromium running/);
  });
});
