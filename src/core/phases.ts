/**
 * The fixed phases of a capture, in order. Plugins add stages to them; the engine owns the order.
 * The core's `delay` stage opens `capture`, so the wait always follows blocking and hiding.
 */
export const PHASES = ['prepare', 'navigate', 'settle', 'capture', 'encode', 'store'] as const;
export type Phase = (typeof PHASES)[number];

/** Milliseconds spent in each phase of a capture, and waiting for a browser context (`queue`). */
export type PhaseTimings = Partial<Record<Phase | 'queue', number>>;
