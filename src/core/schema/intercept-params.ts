import Type, { type Static } from 'typebox';

/** Most rules one capture may give: each is matched against every request of the page. */
export const MAX_INTERCEPTS = 50;
/** Most bytes of bodies one capture's rules may carry together: they live in the request, its job and the page's memory. */
export const MAX_INTERCEPT_BODY_BYTES = 1024 * 1024;
const HEADER_NAME = '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$';
/** No control characters: a header value that ends a line would forge the next header. */
const HEADER_VALUE = '^[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$';

const InterceptRule = Type.Object(
  {
    pattern: Type.String({ minLength: 1, maxLength: 512 }),
    status: Type.Optional(Type.Integer({ minimum: 200, maximum: 599 })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: HEADER_NAME }), Type.String({ maxLength: 4096, pattern: HEADER_VALUE }), { maxProperties: 20 })),
    content_type: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: HEADER_VALUE })),
    body: Type.Optional(Type.String({ maxLength: MAX_INTERCEPT_BODY_BYTES * 2 })),
    encoding: Type.Optional(Type.Enum(['utf8', 'base64'])),
  },
  { additionalProperties: false },
);
export type InterceptRule = Static<typeof InterceptRule>;

/**
 * Requests the capture answers itself, as browserless's `requestInterceptors`: before blocking and
 * before they could leave the browser. Part of the one request schema.
 */
export const INTERCEPT_PROPERTIES = {
  intercept: Type.Optional(
    Type.Array(InterceptRule, {
      minItems: 1,
      maxItems: MAX_INTERCEPTS,
      description:
        'Requests of the page answered by the capture itself, never sent: a JSON array (a JSON string in a query or form) of {pattern, status?, headers?, content_type?, body?, encoding?: utf8 or base64}. `pattern` matches whole URLs as in block_requests (`*` is any characters); the first rule that matches answers, status 200 by default. The page\'s own document may be answered too; block_ads still refuses what it blocks first. At most 50 rules and 1 MiB of bodies.',
    }),
  ),
};

export const INTERCEPT_ALLOWED_TEXT = {
  intercept: `a JSON array of at most ${MAX_INTERCEPTS} {pattern, status? 200..599, headers?, content_type?, body?, encoding?: utf8 or base64}, bodies at most 1 MiB together`,
};

export const INTERCEPT_READERS = {
  intercept: (value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  },
};

/** A rule's body as bytes. */
export function interceptBody(rule: InterceptRule): Buffer {
  return Buffer.from(rule.body ?? '', rule.encoding === 'base64' ? 'base64' : 'utf8');
}

export const INTERCEPT_CHECKS = {
  intercept: (rules: InterceptRule[]): string | undefined => {
    const bad = rules.findIndex((rule) => rule.encoding === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(rule.body ?? ''));
    if (bad >= 0) return `intercept[${bad}].body is not base64`;
    const bytes = rules.reduce((sum, rule) => sum + interceptBody(rule).length, 0);
    return bytes > MAX_INTERCEPT_BODY_BYTES ? `its bodies take ${bytes} bytes, more than ${MAX_INTERCEPT_BODY_BYTES}` : undefined;
  },
};
