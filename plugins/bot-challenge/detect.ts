import type { CDPSession } from 'playwright-core';
import type { BotVendor } from '../../src/core/bot-challenge.js';
import { evaluateInPage } from '../shared/evaluate-in-page.js';
import { inspectPage, TEXT_PREFIX, type PageFindings, type PageProbe } from './inspect-page.js';
import { BLOCK_STATUSES, describeMarker, PAGE_SIGNATURES, WIDGET_SIGNATURES, type MarkerRule } from './signatures.js';

/** The main document's answer, as the detection reads it. */
export interface DocumentAnswer {
  status: number;
  /** Names in lower case. */
  headers: Record<string, string>;
}

/** A challenge recognised: whose, what matched, and whether it may clear itself. */
export interface Verdict {
  vendor: BotVendor;
  matched: string[];
  clears: boolean;
}

const PROBE: PageProbe = {
  pages: PAGE_SIGNATURES.map(({ markers }) => markers.map((marker) => ('header' in marker ? null : marker))),
  widgets: WIDGET_SIGNATURES.map(({ selector }) => selector),
};

/** Looks at the page as it is now and at its document's answer; undefined for an ordinary page. */
export async function detectChallenge(cdp: CDPSession, answer: DocumentAnswer | undefined): Promise<Verdict | undefined> {
  // A document replaced while it was looked at (a challenge that reloads) is judged by its headers alone.
  const findings = await evaluateInPage(cdp, inspectPage, { ...PROBE, textPrefix: TEXT_PREFIX }).catch((): PageFindings => ({ pages: [], wall: null }));
  return judge(findings, answer);
}

/** The first page signature whose markers say so, else a widget that walls the page. */
export function judge(findings: PageFindings, answer: DocumentAnswer | undefined): Verdict | undefined {
  const refused = answer !== undefined && BLOCK_STATUSES.includes(answer.status);
  for (const [index, signature] of PAGE_SIGNATURES.entries()) {
    const inPage = new Set(findings.pages[index] ?? []);
    const hits = signature.markers.filter((marker, at) => inPage.has(at) || headerMatches(marker, answer));
    if (hits.length === 0 || !(refused || hits.some((marker) => marker.strong))) continue;
    const matched = hits.map(describeMarker);
    if (refused && answer) matched.push(`status ${answer.status}`);
    return { vendor: signature.vendor, matched, clears: hits.some((marker) => marker.clears) };
  }
  const wall = findings.wall && WIDGET_SIGNATURES[findings.wall.widget];
  if (!wall || !findings.wall) return undefined;
  return { vendor: wall.vendor, matched: [`selector ${wall.selector}`, findings.wall.why], clears: false };
}

function headerMatches(marker: MarkerRule, answer: DocumentAnswer | undefined): boolean {
  if (!('header' in marker) || answer === undefined) return false;
  const value = answer.headers[marker.header];
  return value !== undefined && (marker.value === undefined || new RegExp(marker.value, 'i').test(value));
}
