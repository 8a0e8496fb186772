import { isIPv4, isIPv6, type Socket } from 'node:net';
import { parseAuthority } from './authority.js';
import type { ProxyConnectionContext } from './connection.js';
import { carryTunnel } from './tunnel.js';

/** The first byte of every SOCKS5 message (RFC 1928). */
export const SOCKS_VERSION = 0x05;
const NO_AUTHENTICATION = 0x00;
const NO_ACCEPTABLE_METHOD = 0xff;
const CONNECT = 0x01;
const ADDRESS_TYPES = { ipv4: 0x01, domain: 0x03, ipv6: 0x04 } as const;

/** The reply codes of RFC 1928 §6 the guard answers with. */
const REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

type Parsed<T> = { incomplete: true } | { invalid: true } | { value: T; length: number };
const INCOMPLETE = { incomplete: true } as const;
const INVALID = { invalid: true } as const;

/** VER NMETHODS METHODS: whether the client offers to go without authentication. */
export function parseGreeting(buffer: Buffer): Parsed<{ noAuthentication: boolean }> {
  if (buffer[0] !== SOCKS_VERSION) return INVALID;
  if (buffer.length < 2) return INCOMPLETE;
  const count = buffer[1]!;
  if (count === 0) return INVALID;
  if (buffer.length < 2 + count) return INCOMPLETE;
  return { value: { noAuthentication: buffer.subarray(2, 2 + count).includes(NO_AUTHENTICATION) }, length: 2 + count };
}

/**
 * VER CMD RSV ATYP DST.ADDR DST.PORT: the target as `host:port` text (an IPv6 literal in brackets),
 * or the reply code that refuses the request as soon as it is known.
 */
export function parseRequest(buffer: Buffer): Parsed<{ target: string } | { reply: number }> {
  if (buffer[0] !== SOCKS_VERSION) return INVALID;
  if (buffer.length < 2) return INCOMPLETE;
  if (buffer[1] !== CONNECT) return { value: { reply: REPLY.commandNotSupported }, length: buffer.length };
  if (buffer.length < 5) return INCOMPLETE;
  const type = buffer[3];
  const addressLength = type === ADDRESS_TYPES.ipv4 ? 4 : type === ADDRESS_TYPES.ipv6 ? 16 : type === ADDRESS_TYPES.domain ? 1 + buffer[4]! : undefined;
  if (addressLength === undefined) return { value: { reply: REPLY.addressTypeNotSupported }, length: buffer.length };
  const length = 4 + addressLength + 2;
  if (buffer.length < length) return INCOMPLETE;
  const address = buffer.subarray(4, 4 + addressLength);
  const port = buffer.readUInt16BE(4 + addressLength);
  let host: string;
  if (type === ADDRESS_TYPES.ipv4) host = [...address].join('.');
  else if (type === ADDRESS_TYPES.ipv6) host = `[${(address.toString('hex').match(/.{4}/g) ?? []).join(':')}]`;
  else {
    // Chromium sends every host as a name, an IPv6 literal without its brackets.
    const name = address.subarray(1).toString('latin1');
    host = isIPv6(name) ? `[${name}]` : name;
  }
  return { value: { target: `${host}:${port}` }, length };
}

/** A reply, with the bound address when there is one (RFC 1928 §6), then for a failure the end of the connection. */
function reply(client: Socket, code: number, bound?: Socket): void {
  const port = Buffer.alloc(2);
  port.writeUInt16BE(bound?.localPort ?? 0);
  const message = Buffer.concat([Buffer.from([SOCKS_VERSION, code, 0]), addressBytes(bound?.localAddress), port]);
  if (code === REPLY.succeeded) return void client.write(message);
  // Server sockets are half-open capable: without the destroy a silent client would keep it.
  client.end(message, () => client.destroy());
}

/** ATYP and address of a reply: the local end of the upstream connection, 0.0.0.0 when there is none. */
function addressBytes(address = '0.0.0.0'): Buffer {
  if (isIPv4(address)) return Buffer.from([ADDRESS_TYPES.ipv4, ...address.split('.').map(Number)]);
  // The URL parser writes every IPv6 form (an embedded IPv4 one too) as hexadecimal groups.
  const [head = '', tail = ''] = new URL(`http://[${address}]/`).hostname.slice(1, -1).split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const zeros = Array<string>(8 - groups(head).length - groups(tail).length).fill('0');
  return Buffer.concat([Buffer.from([ADDRESS_TYPES.ipv6]), Buffer.from([...groups(head), ...zeros, ...groups(tail)].map((group) => group.padStart(4, '0')).join(''), 'hex')]);
}

/**
 * One SOCKS5 client (no authentication, CONNECT only): the greeting and the request are read with
 * at most their own bytes buffered, then the target goes through the same checked tunnel as an HTTP
 * CONNECT. `handshaken` is called once the request is read, so the caller can stop its time bound.
 */
export function acceptSocks5(session: ProxyConnectionContext, client: Socket, first: Buffer, handshaken: () => void): void {
  let buffered = first;
  let greeted = false;
  const onData = (chunk: Buffer): void => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    step();
  };
  const step = (): void => {
    if (!greeted) {
      const greeting = parseGreeting(buffered);
      if ('incomplete' in greeting) return;
      if ('invalid' in greeting) return void client.destroy();
      if (!greeting.value.noAuthentication) return void client.end(Buffer.from([SOCKS_VERSION, NO_ACCEPTABLE_METHOD]), () => client.destroy());
      greeted = true;
      client.write(Buffer.from([SOCKS_VERSION, NO_AUTHENTICATION]));
      buffered = buffered.subarray(greeting.length);
      if (buffered.length === 0) return;
    }
    const request = parseRequest(buffered);
    if ('incomplete' in request) return;
    client.off('data', onData);
    client.pause();
    handshaken();
    if ('invalid' in request) return reply(client, REPLY.generalFailure);
    if ('reply' in request.value) return reply(client, request.value.reply);
    // A client must wait for the reply before sending: bytes after the request are not SOCKS.
    if (buffered.length > request.length) return reply(client, REPLY.generalFailure);
    const target = parseAuthority(request.value.target);
    if (target === undefined) return reply(client, REPLY.generalFailure);
    carryTunnel(session, target, client, Buffer.alloc(0), {
      refuse: (reason) => reply(client, reason === 'refused' ? REPLY.notAllowed : REPLY.hostUnreachable),
      unreachable: (error) => reply(client, (error as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? REPLY.connectionRefused : REPLY.hostUnreachable),
      established: (upstream) => reply(client, REPLY.succeeded, upstream),
    });
  };
  client.on('data', onData);
  step();
}
