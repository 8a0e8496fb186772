import Type from 'typebox';

/** The curves a scroll step may follow. */
export const SCROLL_EASINGS = ['ease_in_out', 'linear', 'ease_in', 'ease_out'] as const;
export type ScrollEasing = (typeof SCROLL_EASINGS)[number];

/** Frames per second a request may ask for. */
export const FPS_RANGE = { minimum: 10, maximum: 60 } as const;

/**
 * How a video is made beyond its scenario and length: the scroll's curve, start and return, and the
 * frame rate. Part of the one request schema.
 */
export const VIDEO_CONTROL_PROPERTIES = {
  scroll_easing: Type.Enum([...SCROLL_EASINGS], { default: 'ease_in_out', description: 'The curve of each scroll step: ease_in_out (slow start and finish), linear, ease_in, ease_out.' }),
  scroll_start_delay: Type.Integer({ minimum: 0, maximum: 60_000, default: 0, description: 'ms the first position is held before the first scroll step.' }),
  scroll_back: Type.Boolean({
    default: false,
    description: 'Scroll back to the top: down for at most half the scrolling time (or until the bottom), then back up, eased, in the time left.',
  }),
  fps: Type.Optional(
    Type.Integer({ ...FPS_RANGE, description: 'Frames per second of an mp4 or webm (the tier caps it; default the engine\'s, 30). A gif has gif_fps.' }),
  ),
};
