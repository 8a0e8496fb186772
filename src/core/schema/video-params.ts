import Type from 'typebox';

/** The curves a scroll step may follow. */
export const SCROLL_EASINGS = ['ease_in_out', 'linear', 'ease_in', 'ease_out'] as const;
export type ScrollEasing = (typeof SCROLL_EASINGS)[number];

/** How a video's frames are made: drawn each for its own moment, or recorded as the page plays. */
export const VIDEO_CLOCKS = ['frames', 'live'] as const;
export type VideoClock = (typeof VIDEO_CLOCKS)[number];

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
  video_clock: Type.Optional(
    Type.Enum([...VIDEO_CLOCKS], {
      description:
        "How a video is made. frames: each frame drawn for its own moment, the page's clocks (animations, timers, Date) running on the video's, exact whatever the machine's load. " +
        'live: recorded as the page plays on the wall clock (a stream, a call). Default: frames, unless the service runs a remote browser (then live; frames is refused).',
    }),
  ),
  fps: Type.Optional(
    Type.Integer({ ...FPS_RANGE, description: 'Frames per second of an mp4 or webm (the tier caps it; default the engine\'s, 30). A gif has gif_fps.' }),
  ),
};
