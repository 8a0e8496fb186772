/** A wedged renderer or browser must not hold anything up: closing it gives up after this. */
export const CLOSE_TIMEOUT_MS = 5_000;
