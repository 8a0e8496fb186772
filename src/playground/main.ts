// The playground page: the request form from the service's OpenAPI document, the capture sent with
// the key the user typed, the answer previewed, and the same request written out. Bundled by
// `npm run build` into dist/playground and served by the HTTP service (src/http/playground-route.ts).
import './playground.css';
import { createCaptureClient, type CaptureApiError } from '../client/index.js';
import { apiErrorOf } from '../client/api-error.js';
import { showFile, showHeaders, showJson } from './answer-view.js';
import { SchemaForm, type ParamSchema } from './schema-form.js';
import { keepInSession } from './session-field.js';
import { SnippetsPanel } from './snippets-panel.js';
import { answerKind, outputName, type RequestShape } from './snippets.js';

/** Errors about the key itself, shown beside the key's field rather than a parameter's. */
const KEY_ERRORS = new Set(['MISSING_API_KEY', 'INVALID_API_KEY']);

function byId<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no #${id}`);
  return found as T;
}

const basePath = document.body.dataset.basePath ?? '/api';
const statusLine = byId<HTMLElement>('status');
const preview = byId<HTMLElement>('preview');
const keyInput = byId<HTMLInputElement>('api-key');
const keyError = byId<HTMLElement>('api-key-error');
const linkKey = byId<HTMLInputElement>('link-key');
const signingSecret = byId<HTMLInputElement>('signing-secret');
const submitButton = byId<HTMLButtonElement>('submit');
const resultPanel = byId<HTMLElement>('result');

const say = (message: string): void => {
  statusLine.textContent = message;
};

async function start(): Promise<void> {
  keepInSession(keyInput, 'apiKey');
  keepInSession(linkKey, 'linkKey');
  keepInSession(signingSecret, 'signingSecret');
  const openApi = (await (await fetch(document.body.dataset.openapi ?? `${basePath}/v1/openapi.json`)).json()) as { components: { schemas: { CaptureParams: { properties: Record<string, ParamSchema> } } } };
  const form = new SchemaForm(byId('fields'), openApi.components.schemas.CaptureParams.properties);
  const snippets = new SnippetsPanel(byId('snippets'), say);
  const shape = (params: Record<string, unknown>): RequestShape => ({ origin: location.origin, basePath, params, keyed: keyInput.value !== '' });
  const refresh = (): void => {
    void snippets.update(shape(form.values().params), { apiKey: keyInput.value, linkKey: linkKey.value, signingSecret: signingSecret.value });
  };
  form.onChange(refresh);
  for (const input of [keyInput, linkKey, signingSecret]) input.addEventListener('input', refresh);
  refresh();
  byId<HTMLFormElement>('request').addEventListener('submit', (event) => {
    event.preventDefault();
    void send(form);
  });
}

/** Sends the form's capture exactly as the curl command does, then shows what came back. */
async function send(form: SchemaForm): Promise<void> {
  form.clearErrors();
  keyError.hidden = true;
  keyInput.removeAttribute('aria-invalid');
  const { params, invalid } = form.values();
  if (invalid[0] !== undefined) {
    say('Some fields need fixing: see the messages beside them.');
    form.focus(invalid[0]);
    return;
  }
  submitButton.disabled = true;
  preview.setAttribute('aria-busy', 'true');
  say('Capturing…');
  const started = performance.now();
  try {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (keyInput.value) headers['X-API-Key'] = keyInput.value;
    const response = await fetch(`${basePath}/v1/capture`, { method: 'POST', headers, body: JSON.stringify(params) });
    showHeaders(byId('response-headers'), response.headers);
    const seconds = `${((performance.now() - started) / 1000).toFixed(2)} s`;
    if (!response.ok) return showError(form, await apiErrorOf(response));
    if (answerKind(params) === 'file') {
      const line = await showFile(preview, await response.blob(), outputName(params));
      return say(`${response.status} · ${line} · ${seconds}`);
    }
    const answer = (await response.json()) as { id?: string; url?: string; status?: string };
    if (response.status === 202 && answer.id) {
      say(`${response.status} · queued as ${answer.id}, waiting for a worker…`);
      const client = createCaptureClient({ baseUrl: location.origin, basePath, apiKey: keyInput.value || undefined });
      const ended = await client.waitFor(answer.id);
      return say(`${ended.status} · ${await showStored(ended, params)}`);
    }
    say(`${response.status} · ${await showStored(answer, params)} · ${seconds}`);
  } catch (error) {
    say(`The request failed: ${(error as Error).message}`);
  } finally {
    submitButton.disabled = false;
    preview.removeAttribute('aria-busy');
    // On a phone the result is below the form: bring it up rather than leave it unseen.
    if (resultPanel.getBoundingClientRect().top > innerHeight) resultPanel.scrollIntoView({ block: 'start' });
  }
}

/** A stored capture (JSON answer, ended asynchronous capture): its file, then its JSON; says what the file is. */
async function showStored(answer: { url?: string }, params: Record<string, unknown>): Promise<string> {
  preview.replaceChildren();
  let line = 'no file';
  if (typeof answer.url === 'string') {
    const file = await fetch(answer.url);
    line = file.ok ? await showFile(preview, await file.blob(), outputName(params)) : `its file answered ${file.status}`;
  }
  showJson(preview, answer);
  return line;
}

function showError(form: SchemaForm, error: CaptureApiError): void {
  say(`${error.status} ${error.code}: ${error.message}`);
  preview.replaceChildren();
  if (KEY_ERRORS.has(error.code)) {
    keyError.textContent = error.message;
    keyError.hidden = false;
    keyInput.setAttribute('aria-invalid', 'true');
    keyInput.focus();
  } else if (error.param && form.has(error.param)) {
    form.showError(error.param, error.message);
    form.focus(error.param);
  }
}

start().catch((error: Error) => say(`The playground could not start: ${error.message}`));
