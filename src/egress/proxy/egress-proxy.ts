import type { EgressPolicy } from '../egress-policy.js';
import type { OutboundProxy } from '../../core/ports.js';
import { ProxySession, type EgressSession } from './session.js';

export type { EgressSession } from './session.js';
export type { EgressFailure } from '../../core/ports.js';

/**
 * The in-process forward proxy every browser context connects through. It dials only addresses it
 * has checked itself, so redirects, subresources and DNS rebinding cannot reach a refused network.
 * Kept hand-written: no proxy library dials only a pre-checked address.
 */
export interface EgressProxy {
  /** Opens a listener for one browser context, whose connections leave through `upstream` when given. */
  openSession(upstream?: OutboundProxy): Promise<EgressSession>;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /** How long a session keeps one name's checked answer (see createPinningResolver). Default 60 s. */
  dnsPinMs?: number;
  /** Upper bound for establishing one upstream connection. Default 15 s. */
  connectTimeoutMs?: number;
}

/** The defaults of `EgressProxyOptions`. */
export const EGRESS_PROXY_DEFAULTS = Object.freeze({ dnsPinMs: 60_000, connectTimeoutMs: 15_000 });

export function createEgressProxy(policy: EgressPolicy, options: EgressProxyOptions = {}): EgressProxy {
  const sessions = new Set<ProxySession>();
  const sessionOptions = { dnsPinMs: options.dnsPinMs ?? EGRESS_PROXY_DEFAULTS.dnsPinMs, connectTimeoutMs: options.connectTimeoutMs ?? EGRESS_PROXY_DEFAULTS.connectTimeoutMs };
  let closed = false;
  return {
    async openSession(upstream) {
      if (closed) throw new Error('Egress proxy is closed');
      const session = new ProxySession(policy, { ...sessionOptions, upstream }, () => sessions.delete(session));
      sessions.add(session);
      await session.listen();
      return session;
    },
    async close() {
      closed = true;
      await Promise.all([...sessions].map((session) => session.close()));
    },
  };
}
