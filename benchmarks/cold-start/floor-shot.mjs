import { chromium } from 'playwright-core';
const browser = await chromium.launch({ executablePath: process.env.BENCH_HEADLESS_SHELL_PATH });
const page = await browser.newPage();
await page.goto(process.argv[2]);
await page.screenshot({ path: process.argv[3] });
await browser.close();
