// The request form, generated from the JSON Schema of the capture parameters in the service's
// OpenAPI document: one labelled control per parameter, its type, range and default beside it.
import { groupOf, NOT_IN_FORM, PARAM_GROUPS, MORE, type ParamGroup } from './param-groups.js';

/** The parts of a parameter's JSON Schema the form reads. */
export interface ParamSchema {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  description?: string;
  examples?: unknown[];
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

interface Field {
  schema: ParamSchema;
  control: Control;
  error: HTMLElement;
  wrapper: HTMLElement;
}

/** Parameters whose text may be longer than a URL (documents, code): a text area rather than a line. */
const LONG_TEXT = 8192;

export class SchemaForm {
  private readonly fields = new Map<string, Field>();

  constructor(container: HTMLElement, properties: Record<string, ParamSchema>) {
    const sections = new Map<ParamGroup, { details: HTMLDetailsElement; body: HTMLElement }>();
    const sectionOf = (group: ParamGroup): HTMLElement => {
      let section = sections.get(group);
      if (!section) {
        section = { details: element('details', { class: 'group' }), body: element('div', { class: 'group-fields' }) };
        section.details.open = group.open;
        section.details.append(element('summary', {}, group.title), section.body);
        sections.set(group, section);
      }
      return section.body;
    };
    for (const [name, schema] of Object.entries(properties)) {
      if (NOT_IN_FORM.has(name)) continue;
      const field = buildField(name, schema);
      this.fields.set(name, field);
      sectionOf(groupOf(name)).append(field.wrapper);
    }
    container.replaceChildren(...[...PARAM_GROUPS, MORE].flatMap((group) => sections.get(group)?.details ?? []));
  }

  /** The parameters set to something other than their default, typed as the schema says. */
  values(): { params: Record<string, unknown>; invalid: string[] } {
    const params: Record<string, unknown> = {};
    const invalid: string[] = [];
    for (const [name, field] of this.fields) {
      try {
        const value = readValue(field);
        if (value !== undefined) params[name] = value;
      } catch (error) {
        invalid.push(name);
        this.showError(name, (error as Error).message);
      }
    }
    return { params, invalid };
  }

  has(name: string): boolean {
    return this.fields.has(name);
  }

  /** Puts `message` beside the parameter's control and marks the control invalid. */
  showError(name: string, message: string): void {
    const field = this.fields.get(name);
    if (!field) return;
    field.error.textContent = message;
    field.error.hidden = false;
    field.control.setAttribute('aria-invalid', 'true');
    field.wrapper.classList.add('invalid');
    // A message inside a closed section would go unseen.
    const details = field.wrapper.closest('details');
    if (details) details.open = true;
  }

  focus(name: string): void {
    this.fields.get(name)?.control.focus();
  }

  clearErrors(): void {
    for (const field of this.fields.values()) {
      field.error.textContent = '';
      field.error.hidden = true;
      field.control.removeAttribute('aria-invalid');
      field.wrapper.classList.remove('invalid');
    }
  }

  /** Calls `listener` whenever any control changes. */
  onChange(listener: () => void): void {
    for (const field of this.fields.values()) {
      field.control.addEventListener('input', listener);
      field.control.addEventListener('change', listener);
    }
  }
}

function buildField(name: string, schema: ParamSchema): Field {
  const id = `param-${name}`;
  const wrapper = element('div', { class: 'field', 'data-param': name });
  const label = element('label', { for: id }, name);
  const hint = element('span', { class: 'range' }, rangeOf(schema));
  const description = element('p', { class: 'hint', id: `${id}-description` }, schema.description ?? '');
  const error = element('p', { class: 'error', id: `${id}-error` });
  error.hidden = true;
  const control = controlFor(schema, id);
  control.setAttribute('aria-describedby', `${id}-description ${id}-error`);
  control.name = name;
  if (control instanceof HTMLInputElement && control.type === 'checkbox') {
    wrapper.classList.add('checkbox');
    wrapper.append(control, label, hint, description, error);
  } else {
    wrapper.append(label, hint, control, description, error);
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 1 && control instanceof HTMLInputElement) {
    const list = element('datalist', { id: `${id}-examples` });
    list.append(...schema.examples.map((example) => element('option', { value: String(example) })));
    control.setAttribute('list', list.id);
    wrapper.append(list);
  }
  return { schema, control, error, wrapper };
}

function controlFor(schema: ParamSchema, id: string): Control {
  if (schema.enum) {
    const select = element('select', { id });
    if (schema.default === undefined) select.append(element('option', { value: '' }, '(not set)'));
    for (const value of schema.enum) select.append(element('option', { value: String(value) }, String(value)));
    if (schema.default !== undefined) select.value = String(schema.default);
    return select;
  }
  switch (schema.type) {
    case 'boolean': {
      const box = element('input', { id, type: 'checkbox' });
      box.checked = schema.default === true;
      return box;
    }
    case 'integer':
    case 'number': {
      const input = element('input', { id, type: 'number', inputmode: schema.type === 'integer' ? 'numeric' : 'decimal', step: schema.type === 'integer' ? '1' : 'any' });
      if (schema.minimum !== undefined) input.min = String(schema.minimum);
      if (schema.maximum !== undefined) input.max = String(schema.maximum);
      if (schema.default !== undefined) input.placeholder = String(schema.default);
      return input;
    }
    case 'array':
    case 'object':
      return element('textarea', { id, rows: '3', spellcheck: 'false', placeholder: schema.type === 'array' ? '[ … ] as JSON' : '{ … } as JSON' });
    default: {
      if ((schema.maxLength ?? 0) > LONG_TEXT) return element('textarea', { id, rows: '4', spellcheck: 'false' });
      const input = element('input', { id, type: 'text', spellcheck: 'false', autocomplete: 'off' });
      if (id === 'param-url') {
        input.inputMode = 'url';
        input.placeholder = 'https://example.com';
      } else if (typeof schema.default === 'string' && schema.default !== '') input.placeholder = schema.default;
      return input;
    }
  }
}

/** A control's value as the parameter's type, or undefined when it says what the default says. */
function readValue({ schema, control }: Field): unknown {
  if (control instanceof HTMLInputElement && control.type === 'checkbox') return control.checked === (schema.default === true) ? undefined : control.checked;
  const raw = control.value.trim();
  if (raw === '' || raw === String(schema.default ?? '')) return undefined;
  if (schema.type === 'integer' || schema.type === 'number') return Number(raw);
  if (schema.type === 'array' || schema.type === 'object') {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new Error(`Not JSON: write ${schema.type === 'array' ? 'an array' : 'an object'} as JSON`);
    }
  }
  return raw;
}

/** What the schema allows, in a few words: `integer 100–7680, default 1920`. */
export function rangeOf(schema: ParamSchema): string {
  const kind = schema.enum ? 'choice' : (schema.type ?? 'text');
  const bounds =
    schema.minimum !== undefined || schema.maximum !== undefined ? ` ${schema.minimum ?? ''}–${schema.maximum ?? ''}` : schema.maxLength !== undefined && schema.type === 'string' ? `, up to ${schema.maxLength} characters` : '';
  const fallback = schema.default === undefined || schema.default === '' ? '' : `, default ${String(schema.default)}`;
  return `${kind}${bounds}${fallback}`;
}

/** An element with attributes and text. */
export function element<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}
