/** A wedged renderer or browser must not hold anything up: closing it gives up after this. */
export const CLOSE_TIMEOUT_MS = 5_000;

/** `promise`, or undefined once `ms` have passed without it settling. */
export function withTimeout<T>(promise: Promise<T>, ms: number = CLOSE_TIMEOUT_MS): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
