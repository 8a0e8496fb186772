import { isIP, type LookupFunction, type NetConnectOpts, type Socket } from 'node:net';

/**
 * Connection options that can only reach the checked addresses: the name stays as the host (so
 * keep-alive pools stay per name) but its lookup answers from the checked list instead of DNS.
 * Node's family auto-selection then tries the addresses in order, which covers a dead IPv6 answer.
 */
export function pinnedConnectOptions(host: string, port: number, addresses: readonly string[]): NetConnectOpts {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const candidates = addresses
      .map((address) => ({ address, family: isIP(address) }))
      .filter(({ family }) => !options.family || family === options.family);
    if (candidates.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`No checked address for ${host}`);
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (options.all) {
      callback(null, candidates);
    } else {
      callback(null, candidates[0]!.address, candidates[0]!.family);
    }
  };
  return {
    host,
    port,
    lookup,
    noDelay: true,
    autoSelectFamily: true,
    // Node abandons an attempt after this and tries the next address; its default (250 ms) is
    // shorter than a trip to the far side of the world.
    autoSelectFamilyAttemptTimeout: 2_000,
  };
}

/**
 * Fails a connection that is not established within `ms`. Only the connect phase is bounded: a
 * streaming response may legitimately stay quiet for long.
 */
export function limitConnectTime(socket: Socket, ms: number): void {
  if (!socket.connecting) return;
  const timer = setTimeout(() => {
    const error: NodeJS.ErrnoException = new Error(`Connect timed out after ${ms} ms`);
    error.code = 'ETIMEDOUT';
    socket.destroy(error);
  }, ms);
  timer.unref();
  const clear = (): void => clearTimeout(timer);
  socket.once('connect', clear);
  socket.once('close', clear);
}
