// What the playground shows of an answer: the file itself (image, PDF, video) or its JSON, and the
// headers a user of the service watches (limits, quota, cache, timings).
import { element } from './schema-form.js';

/** Headers worth showing, in this order, with what they are. */
const SHOWN_HEADERS: readonly (readonly [string, string])[] = [
  ['content-type', 'Content type'],
  ['content-length', 'Bytes'],
  ['x-capture-id', 'Capture id'],
  ['x-ratelimit-limit', 'Rate limit (per minute)'],
  ['x-ratelimit-remaining', 'Requests left this minute'],
  ['x-ratelimit-reset', 'Window resets'],
  ['x-quota-limit', 'Monthly quota'],
  ['x-quota-remaining', 'Captures left this month'],
  ['retry-after', 'Retry after (s)'],
  ['x-cache', 'Cache'],
  ['age', 'Age (s)'],
  ['etag', 'ETag'],
  ['cache-control', 'Cache-Control'],
  ['x-capture-incomplete', 'Waits that ran out'],
  ['server-timing', 'Timings (ms)'],
];

/** `queue;dur=1.2, navigate;dur=80.5, cache;desc="HIT"` as `queue 1.2 · navigate 80.5 · cache HIT`. */
export function readableTimings(header: string): string {
  return header
    .split(',')
    .map((entry) => {
      const [name, ...rest] = entry.trim().split(';');
      const duration = rest.find((part) => part.trim().startsWith('dur='))?.trim().slice(4);
      const description = rest.find((part) => part.trim().startsWith('desc='))?.trim().slice(5).replace(/^"|"$/g, '');
      return [name, duration ?? description].filter(Boolean).join(' ');
    })
    .join(' · ');
}

export function showHeaders(list: HTMLElement, headers: Headers): void {
  const rows = SHOWN_HEADERS.flatMap(([name, title]) => {
    const value = headers.get(name);
    if (value === null) return [];
    const shown = name === 'server-timing' ? readableTimings(value) : name === 'x-ratelimit-reset' ? new Date(Number(value)).toLocaleTimeString() : value;
    return [element('dt', {}, title), element('dd', { 'data-header': name }, shown)];
  });
  list.replaceChildren(...rows);
}

/** Kilobytes for people. */
export function sizeOf(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * Shows a file in `preview` and resolves with a line describing it once the browser has read it
 * (an image's dimensions, a video's length); the previous preview's `blob:` URL is released.
 */
export function showFile(preview: HTMLElement, file: Blob, name: string): Promise<string> {
  for (const old of preview.querySelectorAll<HTMLElement>('[data-blob]')) URL.revokeObjectURL(old.dataset.blob as string);
  const url = URL.createObjectURL(file);
  const download = element('a', { href: url, download: name, class: 'download', 'data-blob': url }, `Download ${name} (${sizeOf(file.size)})`);
  const type = file.type.split(';')[0] ?? '';
  if (type.startsWith('image/')) {
    const image = element('img', { src: url, alt: `The capture, ${name}` });
    preview.replaceChildren(image, download);
    return loaded(image, 'load').then(() => `${type} · ${image.naturalWidth}×${image.naturalHeight} px · ${sizeOf(file.size)}`);
  }
  if (type.startsWith('video/')) {
    const video = element('video', { src: url, controls: '', muted: '', playsinline: '', loop: '' });
    video.muted = true;
    preview.replaceChildren(video, download);
    return loaded(video, 'loadedmetadata').then(() => `${type} · ${video.videoWidth}×${video.videoHeight} px · ${video.duration.toFixed(1)} s · ${sizeOf(file.size)}`);
  }
  if (type === 'application/pdf') {
    preview.replaceChildren(element('iframe', { src: url, title: `The capture, ${name}` }), download);
    return Promise.resolve(`${type} · ${sizeOf(file.size)}`);
  }
  preview.replaceChildren(download);
  return Promise.resolve(`${type || 'file'} · ${sizeOf(file.size)}`);
}

/** Adds a JSON answer, as text, below what the preview shows. */
export function showJson(preview: HTMLElement, body: unknown): void {
  preview.append(element('pre', { class: 'json', tabindex: '0', 'aria-label': 'JSON answer' }, JSON.stringify(body, null, 2)));
}

function loaded(media: HTMLElement, event: string): Promise<void> {
  return new Promise((resolve, reject) => {
    media.addEventListener(event, () => resolve(), { once: true });
    media.addEventListener('error', () => reject(new Error('The browser could not show this file')), { once: true });
  });
}
