import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEngine } from '../helpers/engine.js';

const tempDir = mkdtempSync(path.join(os.tmpdir(), 'abandoned-profiles-'));
afterAll(async () => rm(tempDir, { recursive: true, force: true }));

const profiles = (): string[] => readdirSync(tempDir).filter((name) => name.startsWith('profile-'));

describe('browser profiles left by killed processes', () => {
  it('are removed at the next launch: this host\'s dead owners only', async () => {
    const first = await createTestEngine({ tempDir, warmContexts: 0 });
    const [own] = profiles();
    await first.close();
    // The name the engine gave its profile: profile-<host>-<pid>-<random>.
    const host = /^profile-(.+)-\d+-[^-]+$/.exec(own as string)?.[1] as string;
    expect(own).toBe(`profile-${host}-${process.pid}-${(own as string).split('-').pop()}`);

    const deadPid = spawnSync('true').pid as number;
    const planted = {
      dead: `profile-${host}-${deadPid}-abc123`,
      alive: `profile-${host}-${process.pid}-def456`,
      otherHost: `profile-elsewhere.example-${deadPid}-ghi789`,
      unrelated: 'profile-notes',
    };
    for (const name of Object.values(planted)) {
      mkdirSync(path.join(tempDir, name, 'Default'), { recursive: true });
      writeFileSync(path.join(tempDir, name, 'Default', 'Preferences'), '{}');
    }
    const second = await createTestEngine({ tempDir, warmContexts: 0 });
    try {
      expect(existsSync(path.join(tempDir, planted.dead))).toBe(false);
      for (const kept of [planted.alive, planted.otherHost, planted.unrelated]) expect(existsSync(path.join(tempDir, kept))).toBe(true);
    } finally {
      await second.close();
    }
  });
});
