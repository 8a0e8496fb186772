import type { EgressFailure } from './ports.js';

/**
 * A typed key of a capture's shared state: `const BLOCKING = stateKey<PageBlocking>('block-ads')`.
 * Keys compare by identity, so two plugins that pick the same name never read each other's value.
 */
export interface StateKey<T> {
  readonly name: string;
  /** Carries `T` for the compiler only; never set. */
  readonly type?: T;
}

export function stateKey<T>(name: string): StateKey<T> {
  return Object.freeze({ name });
}

/** What the stages of one capture share, each value under its typed key. */
export class CaptureState {
  private readonly values = new Map<StateKey<unknown>, unknown>();

  get<T>(key: StateKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set<T>(key: StateKey<T>, value: T): void {
    this.values.set(key, value);
  }
}

/** What the pool's lease carried for this capture's context (its egress session), for the navigation stage. */
export const CONTEXT_ATTACHMENT = stateKey<unknown>('core:context-attachment');

/**
 * Why the egress guard did not carry the connection `url` needed, if it did not: set by the core for
 * the plugins that report failed loads, since a refused SOCKS connection reaches the page as a bare net error.
 */
export const EGRESS_FAILURE = stateKey<(url: string) => EgressFailure | undefined>('core:egress-failure');
