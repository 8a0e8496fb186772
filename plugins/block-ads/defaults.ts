/** The defaults of `BlockAdsOptions`, and how long one filter list may take to download. */
export const BLOCK_ADS_DEFAULTS = Object.freeze({ cosmeticPassBudgetMs: 1000, maxListAgeMs: 24 * 3600_000, listTimeoutMs: 30_000 });
