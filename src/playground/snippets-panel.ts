// The "same request" panel: curl, the client call and a signed render link, each with a copy button.
import { createCaptureClient, operatorLinkCredentials } from '../client/index.js';
import { element } from './schema-form.js';
import { clientCall, curlCommand, type RequestShape } from './snippets.js';

/** Parameters a render link cannot carry: it always answers the file, at once. */
const NOT_IN_LINKS = ['response_type', 'async', 'webhook_url'];

export interface LinkSigning {
  apiKey: string;
  /** A managed key's id and secret; empty: derived from `apiKey`. An id alone goes with `apiKey`'s derived secret (a service with a link id secret). */
  linkKey: string;
  signingSecret: string;
}

export class SnippetsPanel {
  private readonly blocks: Record<'curl' | 'client' | 'link', HTMLElement>;
  private latest = 0;

  constructor(container: HTMLElement, status: (message: string) => void) {
    const block = (id: 'curl' | 'client' | 'link', title: string): HTMLElement => {
      const code = element('code', { id: `snippet-${id}` });
      const copy = element('button', { type: 'button', class: 'copy', 'aria-label': `Copy the ${title}` }, 'Copy');
      copy.addEventListener('click', () => void copyText(code.textContent ?? '').then(() => status(`Copied the ${title}.`), () => status('The browser refused the clipboard: select the text and copy it.')));
      const heading = element('div', { class: 'snippet-head' });
      heading.append(element('h3', {}, title), copy);
      const pre = element('pre', { tabindex: '0', 'aria-label': title });
      pre.append(code);
      container.append(heading, pre);
      return code;
    };
    this.blocks = { curl: block('curl', 'curl command'), client: block('client', 'client call'), link: block('link', 'render link') };
  }

  /** Writes the request out; the link, signed with Web Crypto, follows when its signature is ready. */
  async update(shape: RequestShape, signing: LinkSigning): Promise<void> {
    this.blocks.curl.textContent = curlCommand(shape);
    this.blocks.client.textContent = clientCall(shape);
    const asked = ++this.latest;
    const link = await renderLinkText(shape, signing).catch((error: Error) => `Could not sign the link: ${error.message}`);
    // A slower signature of an earlier request must not overwrite the newest one.
    if (asked === this.latest) this.blocks.link.textContent = link;
  }
}

async function renderLinkText({ origin, basePath, params }: RequestShape, signing: LinkSigning): Promise<string> {
  if (typeof params.url !== 'string') return 'A render link captures a url: fill in url.';
  const credentials = signing.linkKey && signing.signingSecret ? { linkKey: signing.linkKey, signingSecret: signing.signingSecret } : signing.apiKey ? await operatorLinkCredentials(signing.apiKey, signing.linkKey ? { linkKey: signing.linkKey } : {}) : undefined;
  if (!credentials) return 'Type an API key (or a key id and its signing secret below) to sign a link.';
  const linkParams = Object.fromEntries(Object.entries(params).filter(([name]) => !NOT_IN_LINKS.includes(name))) as { url: string };
  return createCaptureClient({ baseUrl: origin, basePath }).renderLink(linkParams, credentials);
}

/** The clipboard where the page may use it (https, localhost), else the old selection copy. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard) return navigator.clipboard.writeText(text);
  const area = element('textarea', { class: 'offscreen', readonly: '' });
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('copy refused');
}
