import { devices } from '../loading/playwright.js';

/** Where Playwright lists its device descriptors, the names `device` takes. */
export const DEVICE_LIST_URL = 'https://github.com/microsoft/playwright/blob/main/packages/playwright-core/src/server/deviceDescriptorsSource.json';

/** Every name `device` takes, as Playwright spells it. */
export const DEVICE_NAMES: readonly string[] = Object.keys(devices);

const BY_LOWER_CASE = new Map(DEVICE_NAMES.map((name) => [name.toLowerCase(), name]));

/** Playwright's descriptor of the device `name` (any case), or undefined. */
export function deviceNamed(name: string): (typeof devices)[string] | undefined {
  const known = BY_LOWER_CASE.get(name.trim().toLowerCase());
  return known === undefined ? undefined : devices[known];
}
