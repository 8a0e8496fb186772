import { isIP } from 'node:net';

/** What `allowAddress` decides: whether the guard may connect to `address` on `port`. */
export type AllowAddress = (address: string, port: number) => boolean;

/**
 * Addresses the egress guard lets through although they are private (an intranet page, a local S3
 * for `upload_url`): `address:port` (IPv6 as `[address]:port`) for one port, `address:*` for all
 * of them. A bare address is refused: read as every port, it would open the address's SSH and
 * database along with the one service meant. `source` names where the list came from, in refusals.
 */
export function allowedAddresses(entries: readonly string[], source: string): AllowAddress {
  const allowed = entries.map((raw) => {
    const entry = String(raw).trim();
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+))(?::(\d{1,5}|\*))?$/.exec(entry);
    const address = match?.[1] ?? match?.[2];
    if (!match || address === undefined || isIP(address) !== (match[1] === undefined ? 4 : 6)) {
      throw new Error(`${source} takes IP addresses with a port (10.0.0.5:443, [fd00::5]:8080) or :* for every port, not ${JSON.stringify(entry)}`);
    }
    const shown = match[1] === undefined ? address : `[${address}]`;
    if (match[3] === undefined) throw new Error(`${source} entry ${JSON.stringify(entry)} has no port: write ${shown}:PORT to allow one port, or ${shown}:* to allow every port of it`);
    const port = match[3] === '*' ? undefined : Number(match[3]);
    if (port !== undefined && (port < 1 || port > 65_535)) throw new Error(`${source} entry ${JSON.stringify(entry)}: ports are 1..65535`);
    // The guard sees addresses as Node prints them: IPv6 compressed, lower case (as a URL host is).
    return { address: match[1] === undefined ? address : new URL(`http://[${address}]/`).hostname.slice(1, -1), port };
  });
  return (address, port) => allowed.some((entry) => entry.address === address && (entry.port === undefined || entry.port === port));
}

/** The `allowAddress` option as the guard takes it: a function as it is, a list parsed; anything else refused, naming the option. */
export function allowAddressOption(option: AllowAddress | readonly string[] | undefined): AllowAddress | undefined {
  if (option === undefined || typeof option === 'function') return option;
  if (Array.isArray(option)) return allowedAddresses(option, 'allowAddress');
  throw new TypeError(`Option 'allowAddress' must be a list of 'address:port' strings (['127.0.0.1:8701']) or a function (address, port) => boolean, not ${typeof option}`);
}
