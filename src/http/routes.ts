/**
 * The URL layout of the HTTP service, in one place: adapters, the OpenAPI document and the
 * composition root (which tells the engine where stored files are served) all read it.
 */
export interface RouteTable {
  /** e.g. '/api'; '' mounts the interface at the root. */
  readonly basePath: string;
  /** `GET|POST {basePath}/v1/capture` */
  readonly capture: string;
  /** `GET|HEAD {basePath}/v1/render?...&key=&signature=`: a signed render link. */
  readonly render: string;
  /** `GET {basePath}/v1/captures/<id>`: the status of an asynchronous capture. */
  readonly capturesPrefix: string;
  /** Where the status of the asynchronous capture `id` is read. */
  statusUrl(id: string): string;
  /** `POST {basePath}/v1/bulk`: a batch of asynchronous captures. */
  readonly bulk: string;
  /** `GET {basePath}/v1/bulk/<id>`: a batch's status. */
  readonly bulkPrefix: string;
  /** Where the status of the batch `id` is read. */
  bulkStatusUrl(id: string): string;
  /** `GET {basePath}/v1/webhook-secret`: what the caller's webhooks are signed with. */
  readonly webhookSecret: string;
  /** `POST {basePath}/v1/mcp`: the MCP server, over Streamable HTTP. */
  readonly mcp: string;
  /** `GET {basePath}/v1/openapi.json` */
  readonly openApi: string;
  /** Everything under `{basePath}/v1/` belongs to the interface (unknown paths answer 404 there). */
  readonly versionPrefix: string;
  /** `GET {basePath}/files/<key>` */
  readonly filesPrefix: string;
  /** `GET /healthz` and `GET /readyz`, when the service answers them. */
  readonly health: { readonly alive: string; readonly ready: string } | undefined;
  /**
   * The playground, when the service serves it: its page at `{basePath}/playground` (and at `/` too
   * for a standalone service), its script and style under `{basePath}/playground/`.
   */
  readonly playground: { readonly pages: readonly string[]; readonly assetsPrefix: string } | undefined;
  /** Where the file stored under `key` is served. */
  fileUrl(key: string): string;
  /** Whether a path belongs to the interface; adapters pass every other path on untouched. */
  owns(pathname: string): boolean;
  /** The same, as route patterns for routers that match by pattern (Fastify). */
  readonly patterns: readonly string[];
}

export const DEFAULT_BASE_PATH = '/api';

/** Routes a service answers besides its interface; a mounted one leaves them to its app by default. */
export interface ExtraRoutes {
  /** `GET /healthz` and `GET /readyz` at the root. */
  health?: boolean;
  /** The playground page: `true` at `{basePath}/playground`, `'root'` at `/` as well. */
  playground?: boolean | 'root';
}

export function routeTable(basePath: string = DEFAULT_BASE_PATH, extra: ExtraRoutes = {}): RouteTable {
  const base = basePath.replace(/\/+$/, '');
  const versionPrefix = `${base}/v1/`;
  const filesPrefix = `${base}/files/`;
  const health = extra.health ? { alive: '/healthz', ready: '/readyz' } : undefined;
  const playgroundPage = `${base}/playground`;
  const playground = extra.playground
    ? { pages: extra.playground === 'root' ? ['/', playgroundPage] : [playgroundPage], assetsPrefix: `${playgroundPage}/` }
    : undefined;
  return Object.freeze({
    basePath: base,
    capture: `${versionPrefix}capture`,
    render: `${versionPrefix}render`,
    capturesPrefix: `${versionPrefix}captures/`,
    statusUrl: (id: string) => `${versionPrefix}captures/${encodeURIComponent(id)}`,
    bulk: `${versionPrefix}bulk`,
    bulkPrefix: `${versionPrefix}bulk/`,
    bulkStatusUrl: (id: string) => `${versionPrefix}bulk/${encodeURIComponent(id)}`,
    webhookSecret: `${versionPrefix}webhook-secret`,
    mcp: `${versionPrefix}mcp`,
    openApi: `${versionPrefix}openapi.json`,
    versionPrefix,
    filesPrefix,
    health,
    playground,
    fileUrl: (key: string) => `${filesPrefix}${key}`,
    owns: (pathname: string) =>
      pathname.startsWith(versionPrefix) ||
      pathname.startsWith(filesPrefix) ||
      pathname === health?.alive ||
      pathname === health?.ready ||
      (playground !== undefined && (playground.pages.includes(pathname) || pathname.startsWith(playground.assetsPrefix))),
    patterns: [
      `${versionPrefix}capture`,
      `${versionPrefix}*`,
      `${filesPrefix}*`,
      ...(health ? [health.alive, health.ready] : []),
      ...(playground ? [...playground.pages, `${playground.assetsPrefix}*`] : []),
    ],
  });
}
