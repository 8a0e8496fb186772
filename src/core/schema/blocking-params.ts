import Type from 'typebox';

/** Kinds of request `block_resources` refuses, as Playwright names resource types. */
export const RESOURCE_KINDS = ['image', 'media', 'font', 'stylesheet', 'script', 'xhr', 'websocket'] as const;
type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Playwright's resource types of each kind: `xhr` is every script-made request (fetch, server-sent events too). */
const PLAYWRIGHT_TYPES: Record<ResourceKind, string[]> = {
  image: ['image'],
  media: ['media'],
  font: ['font'],
  stylesheet: ['stylesheet'],
  script: ['script'],
  xhr: ['xhr', 'fetch', 'eventsource'],
  websocket: ['websocket'],
};

/**
 * What a capture refuses to load or run beyond ads and banners: kinds of resource, URL patterns
 * and the page's JavaScript. Part of the one request schema.
 */
export const BLOCKING_PROPERTIES = {
  block_trackers: Type.Boolean({ default: false, description: 'Block analytics and tracking requests (EasyPrivacy) but not ads; block_ads includes it.' }),
  block_chats: Type.Boolean({
    default: false,
    description: 'Block and hide support-chat widgets: Intercom, Drift, Crisp, Zendesk, HubSpot, Tawk.to, LiveChat, Tidio, Freshchat, Olark, Zoho SalesIQ, Help Scout, Gorgias, JivoChat, Smartsupp.',
  }),
  block_resources: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: `Comma-separated kinds of request refused before they leave: ${RESOURCE_KINDS.join(', ')} (xhr covers fetch and server-sent events). The page's own document is always loaded.`,
    }),
  ),
  block_requests: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'Comma-separated URL patterns refused before they leave; `*` matches any characters and a pattern matches the whole URL, e.g. `*.doubleclick.net/*`, `https://example.com/api/*`.',
    }),
  ),
  javascript: Type.Boolean({ default: true, description: "false: the page's own JavaScript does not run (the capture's `scripts` and waits still do, but `wait_for_event`, which listens with a script in the page, is refused)." }),
};

const listOf = (text: string | undefined): string[] => (text ?? '').split(',').map((item) => item.trim()).filter((item) => item.length > 0);

/** Playwright's resource types `block_resources` refuses. */
export function blockedResourceTypes(text: string | undefined): Set<string> {
  return new Set(listOf(text).flatMap((kind) => PLAYWRIGHT_TYPES[kind as ResourceKind] ?? []));
}

/** The patterns of `block_requests` as expressions matching whole URLs. */
export function blockedUrlPatterns(text: string | undefined): RegExp[] {
  return listOf(text).map((pattern) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
}

export const BLOCKING_ALLOWED_TEXT: Partial<Record<keyof typeof BLOCKING_PROPERTIES, string>> = {
  block_resources: `comma-separated kinds: ${RESOURCE_KINDS.join(', ')}`,
};

export const BLOCKING_CHECKS: Partial<Record<keyof typeof BLOCKING_PROPERTIES, (value: never) => string | undefined>> = {
  block_resources: (text: string) => {
    const unknown = listOf(text).find((kind) => !(RESOURCE_KINDS as readonly string[]).includes(kind));
    return unknown === undefined ? undefined : `'${unknown}' is not a kind of request`;
  },
};
