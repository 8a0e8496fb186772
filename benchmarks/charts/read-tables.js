// Tables of the results' Markdown files, found by the headings above them.
import { readFileSync } from 'node:fs';
import { marked } from 'marked';

const RESULTS = new URL('../results/', import.meta.url);

/**
 * The first table after the headings `path` names in order, each by the start of its text: in
 * binaries.md, ['## 2026-11-27 01:25', '### shell:'] is the shell's table of that run. Rows come
 * as objects keyed by the header's cells. Throws, naming the file and heading, when one is missing:
 * a chart must never be drawn from another table than the one it says.
 */
export function tableAfter(file, path) {
  const tokens = marked.lexer(readFileSync(new URL(file, RESULTS), 'utf8'));
  let at = 0;
  for (const start of path) {
    const [, hashes, text] = /^(#+) (.*)$/.exec(start) ?? [];
    const found = tokens.findIndex((token, index) => index >= at && token.type === 'heading' && token.depth === hashes?.length && token.text.startsWith(text));
    if (found < 0) throw new Error(`${file}: no heading "${start}" after the ones before it`);
    at = found + 1;
  }
  const table = tokens.slice(at).find((token) => token.type === 'table' || token.type === 'heading');
  if (table?.type !== 'table') throw new Error(`${file}: no table under "${path.at(-1)}"`);
  const names = table.header.map((cell) => cell.text);
  return table.rows.map((row) => Object.fromEntries(row.map((cell, index) => [names[index], cell.text])));
}

/** `1,338` → 1338; `–` or an empty cell → undefined. */
export function number(text) {
  const value = Number(String(text).replaceAll(',', '').replace(/\s*\(.*$/, ''));
  return text === '' || Number.isNaN(value) ? undefined : value;
}

/** `10,856-20,942` or `680 (633–870)` → { low, high } (or { mid, low, high }); a single number → low = high. */
export function range(text) {
  const inParentheses = /^([\d,.]+) \(([\d,.]+)[–-]([\d,.]+)\)$/.exec(text);
  if (inParentheses) return { mid: number(inParentheses[1]), low: number(inParentheses[2]), high: number(inParentheses[3]) };
  const [low, high = low] = String(text).split(/[–-]/).map(number);
  return { low, high };
}
