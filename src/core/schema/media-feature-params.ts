import Type from 'typebox';

/**
 * The media features a capture may emulate beyond `dark_mode` and `reduced_motion`, with the values
 * Chromium honours for each: Playwright's `forcedColors` and `contrast`, and the reduced-transparency
 * preference Chromium emulates but Playwright does not name.
 */
export const MEDIA_FEATURES = {
  'forced-colors': ['active', 'none'],
  'prefers-contrast': ['more', 'no-preference'],
  'prefers-reduced-transparency': ['reduce', 'no-preference'],
} as const satisfies Record<string, readonly string[]>;
export type MediaFeature = keyof typeof MEDIA_FEATURES;

const LISTED = Object.entries(MEDIA_FEATURES)
  .map(([name, values]) => `${name} (${values.join(', ')})`)
  .join(', ');

export const MEDIA_FEATURE_PROPERTIES = {
  media_features: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: `CSS media features the page sees, as comma-separated \`name:value\` pairs (a JSON object in a JSON body), e.g. \`forced-colors:active,prefers-contrast:more\`: ${LISTED}.`,
    }),
  ),
};

export const MEDIA_FEATURE_ALLOWED_TEXT = { media_features: `comma-separated name:value pairs among ${LISTED}` };

/** `{ "forced-colors": "active" }` from a JSON body reads as `forced-colors:active`. */
export const MEDIA_FEATURE_READERS = {
  media_features: (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const pairs = Object.entries(value);
    return pairs.every(([, feature]) => typeof feature === 'string') ? pairs.map(([name, feature]) => `${name}:${feature as string}`).join(',') : undefined;
  },
};

/** The features of `media_features`, by name; undefined when an item is malformed. */
export function mediaFeatures(text: string): Map<string, string> | undefined {
  const features = new Map<string, string>();
  for (const item of text.split(',')) {
    const match = /^\s*([a-z-]+)\s*:\s*([a-z-]+)\s*$/.exec(item);
    if (!match) return undefined;
    features.set(match[1] as string, match[2] as string);
  }
  return features;
}

export const MEDIA_FEATURE_CHECKS = {
  media_features: (text: string): string | undefined => {
    const features = mediaFeatures(text);
    if (features === undefined) return `'${text}' is not a list of name:value pairs`;
    if (features.size !== text.split(',').length) return 'a feature is named twice';
    for (const [name, value] of features) {
      const values = MEDIA_FEATURES[name as MediaFeature] as readonly string[] | undefined;
      if (values === undefined) return `'${name}' is not a media feature the capture emulates (${Object.keys(MEDIA_FEATURES).join(', ')}; dark_mode and reduced_motion set the others)`;
      if (!values.includes(value)) return `${name} takes ${values.join(' or ')}, not '${value}'`;
    }
    return undefined;
  },
};
