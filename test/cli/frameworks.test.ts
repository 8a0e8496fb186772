import { describe, expect, it } from 'vitest';
import { framework } from '../../src/cli/mount.js';

// Issue 50, item 12: `serve --adapter fastify` from an installed package failed with "Cannot find package 'fastify'".
describe('a framework that is not installed', () => {
  it('is named with the command that installs it', async () => {
    const missing = (): Promise<unknown> => import('fastify-not-installed-anywhere' as string);
    await expect(framework('fastify-not-installed-anywhere', missing)).rejects.toThrow('--adapter fastify-not-installed-anywhere needs the fastify-not-installed-anywhere package, an optional peer of capture-engine: install it beside it (npm install fastify-not-installed-anywhere), or use --adapter node, which needs none');
    await expect(framework('koa', () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
  });
});
