import type { CDPSession } from 'playwright-core';

/**
 * `fn(arg)` run in the page's main world through the capture's CDP session, its value returned
 * (JSON-like values only). Unlike `page.evaluate` it injects nothing: Playwright's first evaluation
 * in a document compiles its utility script there (some 100 KB), which a capture that evaluates
 * nothing else through Playwright pays for nothing. Like `page.evaluate`, it fails when the
 * document goes away meanwhile.
 */
export function evaluateInPage<A, R>(cdp: CDPSession, fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> {
  return evaluateExpression<R>(cdp, `(${fn.toString()})(${JSON.stringify(arg)})`);
}

/** `expression` evaluated as `evaluateInPage` does: for looks that compose several in-page functions into one round trip. */
export async function evaluateExpression<R>(cdp: CDPSession, expression: string): Promise<R> {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (exceptionDetails) throw new Error(`Evaluation failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value as R;
}
