import { operatorLinkCredentials } from '../access/keys/api-key.js';
import { managedKeyIdOf } from '../access/link-canonical.js';
import { renderLink } from '../http/render-link.js';
import { UsageError } from './exit-codes.js';

const USAGE = `capture-engine link <url> [--<parameter> <value> ...] [--expires-in SECONDS] [--base-url URL] [--base-path /api]
  signed with --key ID --signing-secret SECRET (a key made by \`keys create\`: its prefix ce_..., never the
  whole key; or CAPTURE_LINK_KEY and CAPTURE_SIGNING_SECRET), or with --api-key KEY for a key of
  CAPTURE_API_KEYS (its secret is derived; its id too, with the service's CAPTURE_LINK_ID_SECRET in the
  environment, or give it as --key key_... as \`serve\` printed it).
  Parameters are those of /v1/capture: --format webp --viewport-width 1200 --full-page true ...`;

/** Options of the command itself; every other `--name value` is a capture parameter. */
const OWN = new Set(['key', 'signing-secret', 'api-key', 'expires-in', 'base-url', 'base-path']);

/** `capture-engine link <url> ...`: prints a signed render link, so nobody hand-writes the canonical form. */
export function link(args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const [url, ...rest] = args;
  if (url === undefined || url.startsWith('--')) throw new UsageError('link needs the URL of the page first', USAGE);
  const own = new Map<string, string>();
  const params: { url: string } & Record<string, string | string[]> = { url };
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] as string;
    const value = rest[i + 1];
    if (!flag.startsWith('--') || value === undefined) throw new Error(`expected --<name> <value>, got ${flag}${value === undefined ? ' without a value' : ''}\n${USAGE}`);
    const name = flag.slice(2);
    if (OWN.has(name)) own.set(name, value);
    else {
      // Repeated names stay repeated, in order, as the link will carry them.
      const param = name.replaceAll('-', '_');
      const earlier = params[param];
      params[param] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
    }
  }
  const apiKey = own.get('api-key');
  const credentials = apiKey
    ? operatorLinkCredentials(apiKey, { linkKey: own.get('key'), linkIdSecret: env.CAPTURE_LINK_ID_SECRET || undefined })
    : { key: own.get('key') ?? env.CAPTURE_LINK_KEY, signingSecret: own.get('signing-secret') ?? env.CAPTURE_SIGNING_SECRET };
  if (!credentials.key || !credentials.signingSecret) throw new Error(`a link needs a key id and its signing secret\n${USAGE}`);
  const id = managedKeyIdOf(credentials.key);
  if (id !== undefined) throw new Error(`--key (or CAPTURE_LINK_KEY) is a whole API key, secret included, which the link would publish: give its prefix, --key ${id}`);
  const expiresIn = own.get('expires-in');
  if (expiresIn !== undefined && !/^\d+$/.test(expiresIn)) throw new Error(`--expires-in must be whole seconds, not ${expiresIn}`);
  const baseUrl = own.get('base-url') ?? env.CAPTURE_LINK_BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`;
  const signed = renderLink({
    baseUrl,
    basePath: own.get('base-path'),
    key: credentials.key,
    signingSecret: credentials.signingSecret,
    params,
    ...(expiresIn === undefined ? {} : { expiresIn: Number(expiresIn) }),
  });
  process.stdout.write(`${signed}\n`);
}
