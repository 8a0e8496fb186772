import { describe, expect, it } from 'vitest';
import { applyTier, createPolicy, nextMonthStart, checkTierGates, DEFAULT_TIERS, resolveTiers } from '../../src/access/index.js';
import { addressKey } from '../../src/access/address-key.js';
import { createMemoryKeyStore } from '../../src/access/index.js';
import { parseCaptureParams } from '../../src/core/schema/capture-params.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

describe('tiers', () => {
  it('match the docs\' tier table by default and take overrides', () => {
    expect(DEFAULT_TIERS.FREE).toEqual({
      requestsPerMinute: 20,
      monthlyQuota: 100,
      maxDuration: 10,
      geolocation: false,
      maxFullPageHeight: 32_000,
      scripts: true,
      maxDeviceScaleFactor: 4,
      maxFps: 30,
      proxy: false,
      maxConcurrent: 2,
      maxBulkItems: 10,
      browserSecondsPerHour: 600,
      maxPdfPages: 100,
      maxPdfBytes: 20 * 1024 ** 2,
      formats: ['png', 'jpg', 'webp', 'avif', 'pdf', 'mp4', 'webm', 'gif', 'markdown', 'html', 'text', 'links', 'metadata', 'aria', 'scrape'],
    });
    expect(DEFAULT_TIERS.ENTERPRISE.requestsPerMinute).toBe(150);
    expect(resolveTiers({ FREE: { requestsPerMinute: 5 } }).FREE).toMatchObject({ requestsPerMinute: 5, monthlyQuota: 100 });
  });

  it('default full_page_max_height to the tier\'s and refuse more than it allows', () => {
    const tiers = resolveTiers();
    const plain = parseCaptureParams({ url: 'https://a.example', full_page: true });
    expect(applyTier(plain, 'FREE', tiers).full_page_max_height).toBe(32_000);
    expect(applyTier(plain, 'PRO', tiers).full_page_max_height).toBe(150_000);
    const tall = parseCaptureParams({ url: 'https://a.example', full_page: true, full_page_max_height: 100_000 });
    expect(applyTier(tall, 'PRO', tiers).full_page_max_height).toBe(100_000);
    expect(() => applyTier(tall, 'BASIC', tiers)).toThrow(expect.objectContaining({ code: 'TIER_RESTRICTED', details: expect.objectContaining({ param: 'full_page_max_height', required: 'PRO' }) }));
  });

  it('default a PDF\'s pdf_max_pages and pdf_max_bytes to the tier\'s (1,000 pages of 200 MB fit PRO and ENTERPRISE) and refuse more', () => {
    const tiers = resolveTiers();
    const pdf = parseCaptureParams({ url: 'https://a.example', format: 'pdf' });
    expect(applyTier(pdf, 'FREE', tiers)).toMatchObject({ pdf_max_pages: 100, pdf_max_bytes: 20 * 1024 ** 2 });
    for (const tier of ['PRO', 'ENTERPRISE'] as const) {
      const limited = applyTier(pdf, tier, tiers);
      expect(limited.pdf_max_pages).toBeGreaterThanOrEqual(1_000);
      expect(limited.pdf_max_bytes).toBeGreaterThanOrEqual(200 * 1024 ** 2);
    }
    expect(applyTier(parseCaptureParams({ url: 'https://a.example' }), 'FREE', tiers).pdf_max_pages).toBeUndefined();
    const long = parseCaptureParams({ url: 'https://a.example', format: 'pdf', pdf_max_pages: 500 });
    expect(applyTier(long, 'PRO', tiers).pdf_max_pages).toBe(500);
    expect(() => applyTier(long, 'FREE', tiers)).toThrow(expect.objectContaining({ code: 'TIER_RESTRICTED', details: expect.objectContaining({ param: 'pdf_max_pages', max: 100, required: 'PRO' }) }));
  });

  it('cap fps at the tier\'s highest', () => {
    const tiers = resolveTiers();
    const smooth = parseCaptureParams({ url: 'https://a.example', format: 'mp4', fps: 60 });
    expect(() => checkTierGates(smooth, 'PRO', tiers)).not.toThrow();
    expect(() => checkTierGates(smooth, 'BASIC', tiers)).toThrow(expect.objectContaining({ code: 'TIER_RESTRICTED', details: expect.objectContaining({ param: 'fps', required: 'PRO', max: 30 }) }));
  });

  // Found by the request fuzzer (issue 47): the refusal named a parameter the caller never sent.
  it('name the device, not device_scale_factor, when a device brings a scale over the tier\'s', () => {
    const tiers = resolveTiers({ FREE: { maxDeviceScaleFactor: 2 } });
    const phone = parseCaptureParams({ url: 'https://a.example', device: 'iPhone 15' });
    expect(() => checkTierGates(phone, 'FREE', tiers)).toThrow(expect.objectContaining({ code: 'TIER_RESTRICTED', message: expect.stringContaining('device_scale_factor=2'), details: expect.objectContaining({ param: 'device', max: 2 }) }));
    const explicit = parseCaptureParams({ url: 'https://a.example', device_scale_factor: 3 });
    expect(() => checkTierGates(explicit, 'FREE', tiers)).toThrow(expect.objectContaining({ details: expect.objectContaining({ param: 'device_scale_factor' }) }));
  });

  it('gate geolocation below PRO and durations above the tier maximum', () => {
    const tiers = resolveTiers();
    const geo = parseCaptureParams({ url: 'https://a.example', latitude: 1, longitude: 2 });
    expect(() => checkTierGates(geo, 'BASIC', tiers)).toThrow(CaptureError);
    try {
      checkTierGates(geo, 'FREE', tiers);
    } catch (error) {
      expect((error as CaptureError).details).toEqual({ param: 'latitude', tier: 'FREE', required: 'PRO' });
    }
    checkTierGates(geo, 'PRO', tiers);
    const long = parseCaptureParams({ url: 'https://a.example', format: 'mp4', duration: 20 });
    try {
      checkTierGates(long, 'FREE', tiers);
      expect.unreachable();
    } catch (error) {
      expect((error as CaptureError).details).toMatchObject({ param: 'duration', tier: 'FREE', required: 'BASIC' });
    }
    checkTierGates(long, 'BASIC', tiers);
  });
});

describe('policy', () => {
  it('counts requests exactly per minute, per account', async () => {
    const policy = createPolicy({ tiers: { FREE: { requestsPerMinute: 3 } } });
    const results = await Promise.all(Array.from({ length: 5 }, () => policy.hitAccount('a', 'FREE')));
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(results.map((r) => r.remaining).sort()).toEqual([0, 0, 0, 1, 2]);
    expect((await policy.hitAccount('b', 'FREE')).allowed).toBe(true);
    const reset = results[0]?.resetMs ?? 0;
    expect(reset).toBeGreaterThan(Date.now());
    expect(reset).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('reserves, refunds and refuses quota without counting refusals', async () => {
    const policy = createPolicy({ tiers: { FREE: { monthlyQuota: 2 } } });
    expect((await policy.reserve('a', 'FREE')).remaining).toBe(1);
    await policy.refund('a', 'FREE');
    expect((await policy.quota('a', 'FREE')).remaining).toBe(2);
    await policy.reserve('a', 'FREE');
    await policy.reserve('a', 'FREE');
    const refused = await policy.reserve('a', 'FREE');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetMs: nextMonthStart() });
    expect((await policy.quota('a', 'FREE')).remaining).toBe(0);
  });

  it('peeks without counting', async () => {
    const policy = createPolicy();
    await policy.hitAddress('1.2.3.4');
    expect((await policy.peekAddress('1.2.3.4')).remaining).toBe(19);
    expect((await policy.peekAddress('1.2.3.4')).remaining).toBe(19);
  });

  it('resets quotas at the start of the next month, UTC', () => {
    expect(nextMonthStart(new Date(Date.UTC(2026, 11, 31, 23, 59)))).toBe(Date.UTC(2027, 0, 1));
  });
});

describe('key store', () => {
  it('finds keys by hash, never keeps them, and honours revocation', async () => {
    const store = createMemoryKeyStore();
    const { key, record } = await store.create('PRO');
    expect(key).toMatch(/^ce_[\w-]{8}_[\w-]{43}$/);
    expect(record.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).not.toContain(key);
    expect(await store.lookup(key)).toEqual(record);
    expect(await store.lookup(`${key}x`)).toBeUndefined();
    expect(await store.lookup('x'.repeat(10_000))).toBeUndefined();
    expect(await store.revoke(record.id)).toBe(true);
    expect((await store.lookup(key))?.revoked).toEqual(expect.any(String));
  });
});

describe('limits for requests without a valid key', () => {
  it('count an IPv6 client per /64 and an IPv4-mapped client as its IPv4 address', async () => {
    const policy = createPolicy({ tiers: { FREE: { requestsPerMinute: 3 } } });
    const rotating = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:0db8:0001:0002:0:0:0:9'];
    const decisions = [];
    for (const address of rotating) decisions.push(await policy.hitAddress(address));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    expect((await policy.hitAddress('2001:db8:1:3::1')).allowed).toBe(true);

    for (const address of ['203.0.113.5', '::ffff:203.0.113.5', '::FFFF:203.0.113.5']) expect((await policy.hitAddress(address)).allowed).toBe(true);
    expect((await policy.hitAddress('203.0.113.5')).allowed).toBe(false);
    expect((await policy.peekAddress('::ffff:cb00:7105')).remaining).toBe(0);
  });

  it('leave what is not an address as it is', () => {
    expect(addressKey('unknown')).toBe('unknown');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
