import { promises as dns } from 'node:dns';

/**
 * Turns a host name into every address it answers with. Injectable so tests can play public
 * names, mixed answers and rebinding without a network.
 */
export type Resolver = (hostname: string) => Promise<string[]>;

/**
 * getaddrinfo, like the browser would use: honours /etc/hosts and the system's search rules, so an
 * operator's internal names are classified by what they really point to. `verbatim` keeps the
 * resolver's order, which is the order the proxy dials in.
 */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};
