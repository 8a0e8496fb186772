// Requests and answers between a coordinating script and the child processes it forks
// (static/worker.js, load/load-server.js), so that each child's memory and CPU can be measured on its own.
//
//   request: { id, op, ...body }    answer: { id, ok: true, ...result } | { id, ok: false, error }
//
// A child that loses its coordinator (crash, Ctrl-C) or gets SIGINT/SIGTERM closes what it
// opened (its browser) and exits.

/** The coordinator's side: call(op, body, timeoutMs) resolves with the answer or rejects. */
export class ChildChannel {
  constructor(child, { name = 'child process', detail = () => '' } = {}) {
    this.child = child;
    this.seq = 0;
    this.pending = new Map(); // id -> { op, resolve, reject, timer }
    this.dead = false;
    child.on('message', (msg) => {
      const p = this.pending.get(msg?.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg);
      else p.reject(new Error(msg.error));
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.dead = true;
        for (const p of this.pending.values()) {
          clearTimeout(p.timer);
          p.reject(new Error(`${name} exited (${signal ?? code}) during ${p.op}${detail()}`));
        }
        this.pending.clear();
        resolve();
      });
    });
  }

  call(op, body = {}, timeoutMs = 60_000) {
    if (this.dead) return Promise.reject(new Error(`${op}: the child process is not running`));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${op}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { op, resolve, reject, timer });
      this.child.send({ ...body, id, op });
    });
  }

  /** Asks the child to close (op 'close'), then kills it if it has not exited within `graceMs`. */
  async close({ timeoutMs = 20_000, graceMs = 5000 } = {}) {
    if (this.dead) return;
    await this.call('close', {}, timeoutMs).catch(() => this.child.kill('SIGKILL'));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * The child's side: answers each request with `handlers[op](msg)`; after answering `close` it
 * exits. `close()` must be idempotent; it is given at most 15 s when the coordinator goes away.
 */
export function answerRequests(handlers, { close, formatError = (e) => String(e?.stack ?? e) }) {
  const send = (body) => new Promise((resolve) => process.send(body, () => resolve()));
  process.on('message', async (msg) => {
    try {
      const handler = handlers[msg.op];
      if (!handler) throw new Error(`unknown op ${msg.op}`);
      await send({ ...(await handler(msg)), id: msg.id, ok: true });
    } catch (error) {
      await send({ id: msg.id, ok: false, error: formatError(error) }).catch(() => undefined);
    }
    if (msg.op === 'close') process.exit(0);
  });
  const leave = () => {
    setTimeout(() => process.exit(1), 15_000).unref();
    Promise.resolve(close()).finally(() => process.exit(0));
  };
  process.on('disconnect', leave);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, leave);
}
