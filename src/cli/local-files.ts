import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * shot-scraper opens a local HTML file at its file: URL, so the images, styles and scripts beside it
 * load. Pages here load through the egress guard, which has no file: scheme; instead a server on
 * 127.0.0.1 serves the file's folder for as long as the command runs, under a random path (another
 * local user cannot guess it) and only below that folder (`send` refuses paths that climb out, and
 * dot files). The engine is allowed that one address and port, nothing else of the machine.
 */
export class LocalFiles {
  private server?: Promise<Server>;
  private readonly token = randomBytes(16).toString('hex');
  private readonly roots: string[] = [];
  private port?: number;

  /** Whether `address:port` is this server: the egress guard lets it through. */
  readonly allows = (address: string, port: number): boolean => port === this.port && address === '127.0.0.1';

  /** The URL the file at `file` is served at; the server starts with the first file. */
  async urlOf(file: string): Promise<string> {
    const absolute = path.resolve(file);
    const folder = path.dirname(absolute);
    const index = this.roots.includes(folder) ? this.roots.indexOf(folder) : this.roots.push(folder) - 1;
    const server = await (this.server ??= this.listen());
    this.port = (server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}/${this.token}/${index}/${encodeURIComponent(path.basename(absolute))}`;
  }

  async close(): Promise<void> {
    const server = await this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private async listen(): Promise<Server> {
    // Loaded with the first local file: a shot of a URL has no use for it.
    const { default: send } = await import('send');
    const server = createServer((req, res) => {
      const [, token, index, ...rest] = new URL(req.url ?? '/', 'http://local').pathname.split('/');
      const root = token === this.token ? this.roots[Number(index)] : undefined;
      if (root === undefined || !/^\d+$/.test(index ?? '')) {
        res.writeHead(404).end();
        return;
      }
      send(req, `/${rest.join('/')}`, { root, dotfiles: 'deny', index: false }).pipe(res);
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
  }
}

/** shot-scraper's test for a local file: a path that names an existing file (not a folder). */
export function isLocalFile(url: string): boolean {
  return !/^https?:\/\//i.test(url) && existsSync(url) && statSync(url).isFile();
}
