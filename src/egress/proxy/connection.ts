import type { Agent } from 'node:http';
import type { Socket } from 'node:net';
import type { EgressFailure } from '../../core/ports.js';
import type { HostVerdict } from '../egress-policy.js';
import type { OutboundProxy } from '../../core/ports.js';

/** What one connection handler needs of its proxy session. */
export interface ProxyConnectionContext {
  /** Checks a host and port; never rejects (fails closed). */
  check(hostname: string, port: number): Promise<HostVerdict>;
  /** Remembers why `key` (`host:port`) was not carried; `refusedAs` is what the refusal log shows. */
  record(key: string, failure: EgressFailure, refusedAs?: string): void;
  /** Forgets an earlier failure of `key` once a connection to it succeeds. */
  succeeded(key: string): void;
  /** Tracks a socket so closing the session ends it. */
  track(socket: Socket): void;
  /** Keep-alive agent for upstream plain-http requests. */
  readonly agent: Agent;
  /** Upper bound for establishing one upstream connection. */
  readonly connectTimeoutMs: number;
  /** The capture's own proxy, when it has one: every connection leaves through it. */
  readonly upstream: OutboundProxy | undefined;
}
