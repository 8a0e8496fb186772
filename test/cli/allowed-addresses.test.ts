import { describe, expect, it } from 'vitest';
import { parseAllowedAddresses } from '../../src/cli/options-from-env.js';
import { allowAddressOption } from '../../src/egress/allowed-addresses.js';
import { createCaptureEngine, silentLogger } from '../../src/index.js';

describe('CAPTURE_ALLOW_ADDRESSES', () => {
  it('allows an address on its port only, or on every port with :*', () => {
    const allowed = parseAllowedAddresses(' 10.0.0.5:443, 10.0.0.6:* ,[fd00::5]:8080,[FD00:0:0::6]:*') as (address: string, port: number) => boolean;
    expect(allowed('10.0.0.5', 443)).toBe(true);
    expect(allowed('10.0.0.5', 22)).toBe(false);
    expect(allowed('10.0.0.6', 22)).toBe(true);
    expect(allowed('10.0.0.6', 5432)).toBe(true);
    expect(allowed('fd00::5', 8080)).toBe(true);
    expect(allowed('fd00::5', 8081)).toBe(false);
    // As the guard sees an address: compressed and lower case.
    expect(allowed('fd00::6', 1)).toBe(true);
    expect(allowed('10.0.0.7', 443)).toBe(false);
  });

  it('refuses an address without a port, suggesting address:PORT or address:*', () => {
    expect(() => parseAllowedAddresses('10.0.0.5:443,10.0.0.6')).toThrow('CAPTURE_ALLOW_ADDRESSES entry "10.0.0.6" has no port: write 10.0.0.6:PORT to allow one port, or 10.0.0.6:* to allow every port of it');
    expect(() => parseAllowedAddresses('[fd00::5]')).toThrow('write [fd00::5]:PORT to allow one port, or [fd00::5]:* to allow every port');
  });

  it('refuses what is not an IP address with a port', () => {
    for (const entry of ['intranet.example:443', '999.1.1.1:80', 'fd00::5:80', '[10.0.0.5]:80', '10.0.0.5:', '10.0.0.5:0', '10.0.0.5:65536', '']) {
      expect(() => parseAllowedAddresses(`10.0.0.1:80,${entry}`), entry).toThrow(/CAPTURE_ALLOW_ADDRESSES/);
    }
  });

  it('is nothing when unset or blank', () => {
    expect(parseAllowedAddresses(undefined)).toBeUndefined();
    expect(parseAllowedAddresses('  ')).toBeUndefined();
  });
});

// Issue 50, item 4: the configuration table's list, given to the library, worked at start and failed every capture.
describe('the allowAddress option', () => {
  it('takes the same list as CAPTURE_ALLOW_ADDRESSES, refusing what it would refuse, naming the option', () => {
    const allowed = allowAddressOption(['127.0.0.1:8701', '[::1]:*']) as (address: string, port: number) => boolean;
    expect(allowed('127.0.0.1', 8701)).toBe(true);
    expect(allowed('127.0.0.1', 8702)).toBe(false);
    expect(allowed('::1', 22)).toBe(true);
    expect(() => allowAddressOption(['127.0.0.1'])).toThrow("allowAddress entry \"127.0.0.1\" has no port: write 127.0.0.1:PORT to allow one port, or 127.0.0.1:* to allow every port of it");
    expect(() => allowAddressOption('127.0.0.1:8701' as unknown as string[])).toThrow(/Option 'allowAddress' must be a list of 'address:port' strings/);
    const chosen = (address: string): boolean => address === '10.0.0.5';
    expect(allowAddressOption(chosen)).toBe(chosen);
  });

  it('is refused by createCaptureEngine before any browser starts', async () => {
    await expect(createCaptureEngine({ allowAddress: ['localhost:8701'], log: silentLogger })).rejects.toThrow(/allowAddress takes IP addresses with a port/);
  });
});
