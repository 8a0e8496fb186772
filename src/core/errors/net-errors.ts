/**
 * Chromium's network errors (net/base/net_error_list.h), sorted into what a caller can act on.
 * Patterns are matched against the `net::ERR_...` name in a navigation failure; the first class
 * that matches wins. A name no class knows is still a network failure (`network`), never a 500.
 */
export type NetErrorClass =
  | 'url_not_allowed'
  | 'dns'
  | 'connection_refused'
  | 'connection_reset'
  | 'connection_timeout'
  | 'tls'
  | 'unreachable'
  | 'too_many_redirects'
  | 'invalid_response'
  | 'unsafe_port'
  | 'blocked'
  | 'aborted'
  | 'network';

const CLASSES: readonly [RegExp, NetErrorClass][] = [
  // Redirects to file:, data:, chrome: and other schemes, and URLs Chromium will not load at all.
  [/^(UNSAFE_REDIRECT|UNKNOWN_URL_SCHEME|DISALLOWED_URL_SCHEME|INVALID_URL|INVALID_REDIRECT|BLOCKED_BY_ADMINISTRATOR)$/, 'url_not_allowed'],
  [/^(NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|DNS_.*|ICANN_NAME_COLLISION)$/, 'dns'],
  [/^CONNECTION_REFUSED$/, 'connection_refused'],
  [/^(CONNECTION_RESET|CONNECTION_CLOSED|CONNECTION_ABORTED|EMPTY_RESPONSE|SOCKET_NOT_CONNECTED)$/, 'connection_reset'],
  [/^(CONNECTION_TIMED_OUT|TIMED_OUT)$/, 'connection_timeout'],
  [/^(CERT_.*|SSL_.*|BAD_SSL_.*|.*_CERT_.*|NO_SSL_VERSIONS_ENABLED|ECH_.*|CT_.*|PINNING_.*)$/, 'tls'],
  [/^(ADDRESS_UNREACHABLE|ADDRESS_INVALID|INTERNET_DISCONNECTED|NETWORK_CHANGED|NETWORK_ACCESS_DENIED|CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED|PROXY_.*|.*_PROXY_.*|SOCKS_.*)$/, 'unreachable'],
  [/^TOO_MANY_REDIRECTS$/, 'too_many_redirects'],
  [/^(INVALID_RESPONSE|INVALID_HTTP_RESPONSE|CONTENT_DECODING_FAILED|CONTENT_LENGTH_MISMATCH|INCOMPLETE_CHUNKED_ENCODING|INVALID_CHUNKED_ENCODING|RESPONSE_HEADERS_.*|RESPONSE_BODY_TOO_BIG_TO_DRAIN|MALFORMED_IDENTITY|HTTP2_.*|HTTP_1_1_REQUIRED|QUIC_.*|SPDY_.*|ENCODING_.*|UNEXPECTED_.*|INVALID_AUTH_CREDENTIALS|UNSUPPORTED_AUTH_SCHEME|MISSING_AUTH_CREDENTIALS|MISCONFIGURED_AUTH_ENVIRONMENT|CACHE_.*)$/, 'invalid_response'],
  [/^UNSAFE_PORT$/, 'unsafe_port'],
  [/^(BLOCKED_BY_RESPONSE|BLOCKED_BY_CSP|BLOCKED_BY_ORB|BLOCKED_BY_FINGERPRINTING_PROTECTION|CLEARTEXT_NOT_PERMITTED|H2_OR_QUIC_REQUIRED|INSECURE_RESPONSE)$/, 'blocked'],
  [/^(ABORTED|BLOCKED_BY_CLIENT|CONTEXT_SHUT_DOWN)$/, 'aborted'],
];

/** The `net::ERR_*` name in a message, without its prefix (`NAME_NOT_RESOLVED`). */
export function netErrorName(message: string): string | undefined {
  return /net::ERR_([A-Z0-9_]+)/.exec(message)?.[1];
}

/** The class of a Chromium network error name; `network` for one no class lists. */
export function classifyNetError(name: string): NetErrorClass {
  return CLASSES.find(([pattern]) => pattern.test(name))?.[1] ?? 'network';
}
