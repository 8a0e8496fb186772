import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { s3StorageFromEnv } from '../../src/storage/s3-storage.js';
import { startS3rver, type TestS3 } from '../helpers/s3rver.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => s3?.close());

describe('s3StorageFromEnv', () => {
  it('is undefined without CAPTURE_S3_BUCKET and refuses flags it cannot read', () => {
    expect(s3StorageFromEnv({})).toBeUndefined();
    expect(s3StorageFromEnv({ CAPTURE_S3_BUCKET: ' ', CAPTURE_S3_ENDPOINT: 'http://127.0.0.1:1' })).toBeUndefined();
    expect(() => s3StorageFromEnv({ CAPTURE_S3_BUCKET: 'b', CAPTURE_S3_PRESIGN: 'yes' })).toThrow(/CAPTURE_S3_PRESIGN must be true or false/);
  });

  it('reads endpoint, region, prefix, path style and presign; credentials come from the SDK chain', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', s3.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.credentials.secretAccessKey);
    try {
      const storage = s3StorageFromEnv({
        CAPTURE_S3_BUCKET: s3.bucket,
        CAPTURE_S3_ENDPOINT: s3.endpoint,
        CAPTURE_S3_REGION: 'eu-west-3',
        CAPTURE_S3_PREFIX: '/from-env/',
        CAPTURE_S3_FORCE_PATH_STYLE: 'true',
        CAPTURE_S3_PRESIGN: '1',
      });
      expect(storage).toBeDefined();
      await storage!.put('2026-03-01/env.webp', { data: Buffer.from('webp') }, { contentType: 'image/webp', size: 4 });
      expect(await s3.keys('from-env/')).toEqual(['from-env/2026-03-01/env.webp']);
      const file = await storage!.get('2026-03-01/env.webp');
      expect(file?.redirectUrl).toContain(`${s3.endpoint}/${s3.bucket}/from-env/2026-03-01/env.webp?`);
      expect(file?.redirectUrl).toContain('eu-west-3');
      expect(await (await fetch(file!.redirectUrl!)).text()).toBe('webp');
      await storage!.close?.();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
