// Puppeteer (used by capture-website and browserless) must never download a browser here:
// the benchmark points both at the system Chromium (CAPTURE_CHROMIUM_PATH or /usr/bin/chromium).
module.exports = { skipDownload: true, chrome: { skipDownload: true }, 'chrome-headless-shell': { skipDownload: true } };
