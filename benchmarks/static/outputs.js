// The outputs a static capture case can ask for: shared by the static benchmark and the CPU breakdown.

/**
 * What each output asks for on top of the page and viewport: `dpr2` a png at device scale factor 2
 * (4x the pixels), `selector` a png of the page's first heading only, `device` a png as an iPhone 15
 * shows the page (393x659 at scale 3, mobile, touch; the case's viewport is ignored), `thumb` a png
 * resized to 320 px wide, `noimages` a png with every image request refused.
 */
export const OUTPUTS = {
  png: { format: 'png' },
  jpg: { format: 'jpg' },
  webp: { format: 'webp' },
  fullpage: { format: 'png', fullPage: true },
  dpr2: { format: 'png', scale: 2 },
  selector: { format: 'png', selector: 'h1' },
  device: { format: 'png', device: 'iPhone 15' },
  thumb: { format: 'png', thumbWidth: 320 },
  noimages: { format: 'png', blockImages: true },
};
