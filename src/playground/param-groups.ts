// How the playground sorts the request schema's parameters into sections: by name, so a parameter
// added to the schema appears without a change here (in "More" until it is placed).

export interface ParamGroup {
  title: string;
  /** Shown unfolded: the parameters nearly every request sets. */
  open: boolean;
  has(name: string): boolean;
}

const named =
  (...names: string[]) =>
  (name: string): boolean =>
    names.includes(name);
const prefixed =
  (...prefixes: string[]) =>
  (name: string): boolean =>
    prefixes.some((prefix) => name.startsWith(prefix));

export const PARAM_GROUPS: readonly ParamGroup[] = [
  { title: 'Page and output', open: true, has: named('url', 'format', 'viewport_width', 'viewport_height', 'full_page', 'device', 'quality', 'response_type') },
  { title: 'Documents instead of a URL', open: false, has: (name) => prefixed('html', 'markdown')(name) || name === 'download_from' || name === 'pdf_merge' },
  { title: 'What the page says', open: false, has: named('content', 'links_selector', 'scrape', 'outputs') },
  { title: 'Image', open: false, has: (name) => prefixed('image_', 'clip_', 'full_page_')(name) || named('omit_background', 'device_scale_factor', 'caret', 'mask', 'mask_color', 'inset')(name) },
  { title: 'Element', open: false, has: (name) => prefixed('selector', 'scroll_into_view', 'hide_')(name) || named('padding', 'click')(name) },
  { title: 'Emulation', open: false, has: named('is_mobile', 'has_touch', 'dark_mode', 'media_type', 'media_features', 'reduced_motion', 'user_agent', 'locale', 'timezone', 'latitude', 'longitude') },
  { title: 'Blocking', open: false, has: prefixed('block_') },
  { title: 'Waiting', open: false, has: (name) => prefixed('wait_')(name) || named('delay', 'settle', 'timeout', 'best_effort')(name) },
  { title: 'Failure rules', open: false, has: (name) => prefixed('fail_')(name) || name === 'on_bot_challenge' || name === 'robots_txt' },
  { title: 'Scripts and actions', open: false, has: named('javascript', 'styles', 'scripts', 'actions', 'show_cursor', 'init_scripts', 'script_urls', 'style_urls', 'scripts_type') },
  { title: 'Requests the page makes', open: false, has: named('headers', 'headers_scope', 'cookies', 'proxy', 'referrer', 'intercept') },
  { title: 'PDF', open: false, has: prefixed('pdf_') },
  { title: 'Video', open: false, has: (name) => prefixed('scroll_')(name) || named('scenario', 'duration', 'video_clock', 'fps', 'gif_fps')(name) },
  { title: 'Cache', open: false, has: (name) => prefixed('cache')(name) || name === 'fresh' },
  { title: 'Delivery and reports', open: false, has: named('async', 'webhook_url', 'upload_url', 'metadata', 'diagnostics', 'har') },
];

/** The section of `name`; the last one, "More", takes what no other does. */
export function groupOf(name: string): ParamGroup {
  return PARAM_GROUPS.find((group) => group.has(name)) ?? MORE;
}

export const MORE: ParamGroup = { title: 'More', open: false, has: () => true };

/** Parameters the form leaves out: uploads need multipart, and the key has a field of its own. */
export const NOT_IN_FORM = new Set(['files', 'api_key']);
