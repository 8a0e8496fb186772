// Secrets the user types (API key, signing secret) live in the tab's sessionStorage: gone when the
// tab closes, never in a URL, a cookie or the page's snippets.

const PREFIX = 'capture-engine.playground.';

/** Fills `input` from the session and keeps the session up to date as the user types. */
export function keepInSession(input: HTMLInputElement, name: string): void {
  input.value = read(name);
  input.addEventListener('input', () => {
    try {
      if (input.value === '') sessionStorage.removeItem(PREFIX + name);
      else sessionStorage.setItem(PREFIX + name, input.value);
    } catch {
      // Storage refused (private mode, quota): the value still works for this page's life.
    }
  });
}

function read(name: string): string {
  try {
    return sessionStorage.getItem(PREFIX + name) ?? '';
  } catch {
    return '';
  }
}
