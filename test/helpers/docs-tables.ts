import { CaptureParamsSchema, PARAM_NAMES, allowedFor } from '../../src/core/schema/capture-params.js';
import { DEFAULT_TIERS, TIER_NAMES } from '../../src/access/tiers.js';

/**
 * The generated tables of the docs, rendered from the one request schema and the default tiers.
 * test/docs/tables.test.ts compares them with their pages; `npm run docs:tables` rewrites them.
 */
export const DOC_TABLES = {
  parameters: (): string => {
    const rows = PARAM_NAMES.map((name) => {
      const schema = CaptureParamsSchema.properties[name] as { default?: unknown; description?: string };
      const fallback = name === 'url' ? 'none (one of url, html, markdown, files is required)' : schema.default === undefined || schema.default === '' ? 'none' : String(schema.default);
      return `| \`${name}\` | ${allowedFor(name)} | ${fallback} | ${schema.description ?? ''} |`;
    });
    return ['| name | allowed | default | meaning |', '|---|---|---|---|', ...rows, '| `api_key` | string | none | the API key (alternative to the `X-API-Key` header) |'].join('\n');
  },
  tiers: (): string => {
    const number = (value: number): string => value.toLocaleString('en-US');
    const rows = TIER_NAMES.map((name) => {
      const tier = DEFAULT_TIERS[name];
      return `| ${name} | ${number(tier.requestsPerMinute)} | ${number(tier.monthlyQuota)} | ${number(tier.maxDuration)} | ${tier.geolocation ? 'yes' : 'no'} | ${number(tier.maxFullPageHeight)} | ${tier.scripts ? 'yes' : 'no'} | ${tier.maxDeviceScaleFactor} | ${tier.maxFps} | ${tier.proxy ? 'yes' : 'no'} | ${number(tier.maxConcurrent)} | ${number(tier.maxBulkItems)} | ${number(tier.browserSecondsPerHour)} | ${number(tier.maxPdfPages)} | ${number(tier.maxPdfBytes / 1024 ** 2)} | ${tier.formats.join(', ')} |`;
    });
    return ['| tier | requests/min | captures/month | longest video (s) | geolocation | tallest full page (px) | scripts | largest device_scale_factor | highest fps | proxy | running at once | batch items | browser s/hour | PDF pages | PDF MiB | formats |', '|---|--:|--:|--:|---|--:|---|--:|--:|---|--:|--:|--:|--:|--:|---|', ...rows].join('\n');
  },
};

export type DocTable = keyof typeof DOC_TABLES;

/** The page each table lives in. */
export const TABLE_PAGES: Readonly<Record<DocTable, string>> = { parameters: 'docs/parameters.md', tiers: 'docs/http-service.md' };

/** A page's text between `<!-- name:start -->` and `<!-- name:end -->`. */
export function tableSection(page: string, name: DocTable): string | undefined {
  return sectionPattern(name).exec(page)?.[1];
}

export function withSection(page: string, name: DocTable, table: string): string {
  return page.replace(sectionPattern(name), `<!-- ${name}:start -->\n${table}\n<!-- ${name}:end -->`);
}

function sectionPattern(name: DocTable): RegExp {
  return new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n?<!-- ${name}:end -->`);
}
