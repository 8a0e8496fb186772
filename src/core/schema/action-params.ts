import Type, { type Static } from 'typebox';

/** What a step of `actions` can do, with the field each one needs. */
export const ACTION_KINDS = ['click', 'hover', 'type', 'press', 'select', 'wait', 'wait_for', 'wait_for_hidden', 'scroll_to', 'evaluate'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** The most steps one capture may run. */
export const MAX_ACTIONS = 50;

const SELECTOR = Type.String({ minLength: 1, maxLength: 1024 });

const ActionStep = Type.Object(
  {
    action: Type.Enum([...ACTION_KINDS]),
    selector: Type.Optional(SELECTOR),
    text: Type.Optional(Type.String({ maxLength: 4096 })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    option: Type.Optional(Type.String({ maxLength: 1024 })),
    ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    y: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    script: Type.Optional(Type.String({ minLength: 1, maxLength: 32 * 1024 })),
  },
  { additionalProperties: false },
);
export type ActionStep = Static<typeof ActionStep>;

/** The fields each kind of step must have (`scroll_to` takes either of its two). */
const NEEDS: Record<ActionKind, (keyof ActionStep)[][]> = {
  click: [['selector']],
  hover: [['selector']],
  type: [['selector'], ['text']],
  press: [['key']],
  select: [['selector'], ['option']],
  wait: [['ms']],
  wait_for: [['selector']],
  wait_for_hidden: [['selector']],
  scroll_to: [['selector', 'y']],
  evaluate: [['script']],
};

/**
 * Steps run in the page once it is ready (shot-scraper's storyboards, Urlbox's interactions).
 * Part of the one request schema.
 */
export const ACTION_PROPERTIES = {
  actions: Type.Optional(
    Type.Array(ActionStep, {
      maxItems: MAX_ACTIONS,
      description:
        `Steps run in order once the page is ready, before hiding and delay (during the recording with scenario=record): a JSON array (a JSON string in a query) of {action, ...}: ` +
        'click, hover (selector); type (selector, text); press (key, selector?); select (selector, option: a value or label); wait (ms); wait_for, wait_for_hidden (selector); ' +
        `scroll_to (selector or y); evaluate (script; tiers that allow scripts). At most ${MAX_ACTIONS}. {"click": "#a"} is short for {"action": "click", "selector": "#a"}. A failing step answers 422 ACTION_FAILED with its index.`,
    }),
  ),
  show_cursor: Type.Boolean({ default: false, description: 'Draw the mouse pointer, moved smoothly by click and hover actions (for videos of a user journey).' }),
};

export const ACTION_ALLOWED_TEXT: Partial<Record<keyof typeof ACTION_PROPERTIES, string>> = {
  actions: `a JSON array of at most ${MAX_ACTIONS} steps {action, selector?, text?, key?, option?, ms?, y?, script?}, action one of ${ACTION_KINDS.join(', ')}`,
};

/** The field a shorthand step's value fills, by kind: `{"wait": 500}` is `{"action": "wait", "ms": 500}`. */
const SHORTHAND_FIELD: Record<ActionKind, keyof ActionStep> = {
  click: 'selector',
  hover: 'selector',
  type: 'selector',
  press: 'key',
  select: 'selector',
  wait: 'ms',
  wait_for: 'selector',
  wait_for_hidden: 'selector',
  scroll_to: 'selector',
  evaluate: 'script',
};

/** One step in its full form; a shorthand `{kind: value}` (or `{kind: {fields}}`) is spelt out. */
function spelledOut(step: unknown): unknown {
  if (step === null || typeof step !== 'object' || Array.isArray(step) || 'action' in step) return step;
  const [entry, ...more] = Object.entries(step);
  if (entry === undefined || more.length > 0) return step;
  const [kind, value] = entry;
  if (!(ACTION_KINDS as readonly string[]).includes(kind)) return step;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { action: kind, ...value };
  if (kind === 'scroll_to' && typeof value === 'number') return { action: kind, y: value };
  return { action: kind, [SHORTHAND_FIELD[kind as ActionKind]]: value };
}

export const ACTION_READERS: Partial<Record<keyof typeof ACTION_PROPERTIES, (value: unknown) => unknown>> = {
  actions: (value) => {
    let steps = value;
    if (typeof value === 'string') {
      try {
        steps = JSON.parse(value) as unknown;
      } catch {
        return undefined;
      }
    }
    return Array.isArray(steps) ? steps.map(spelledOut) : steps;
  },
};

export const ACTION_CHECKS: Partial<Record<keyof typeof ACTION_PROPERTIES, (value: never) => string | undefined>> = {
  actions: (steps: ActionStep[]) => {
    for (const [index, step] of steps.entries()) {
      const missing = NEEDS[step.action].find((either) => either.every((field) => step[field] === undefined));
      if (missing) return `step ${index} (${step.action}) needs ${missing.join(' or ')}`;
      if (step.action === 'scroll_to' && step.selector !== undefined && step.y !== undefined) return `step ${index} (scroll_to) takes selector or y, not both`;
    }
    return undefined;
  },
};

/** Whether the steps run the caller's JavaScript (tier-gated like `scripts`). */
export function actionsRunScript(steps: readonly ActionStep[] | undefined): boolean {
  return steps?.some((step) => step.action === 'evaluate') ?? false;
}
