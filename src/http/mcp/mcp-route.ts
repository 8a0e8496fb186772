import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CaptureEngine, CaptureOptions } from '../../core/engine.js';
import { CaptureError } from '../../core/errors/catalogue.js';
import { captureErrors } from '../../core/errors/factories.js';
import { identify, type Caller } from '../caller.js';
import { answerCapture } from '../capture-route.js';
import { countRequest } from '../count-request.js';
import { methodNotAllowed, payloadTooLarge, rateLimitExceeded } from '../http-errors.js';
import type { RouteAnswer } from '../http-observer.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import type { HttpRequest, HttpResponse } from '../http-types.js';
import { errorResponse } from '../responses.js';
import { captureMcpServer, ToolRefusal, type RunCapture } from './mcp-server.js';
import { mcpInFlightLimit } from '../../access/in-flight-slots.js';
import { mcpMessageRate } from './mcp-message-rate.js';

type Account = Extract<Caller, { kind: 'account' }>;

/**
 * `POST {base}/v1/mcp`: MCP over Streamable HTTP, stateless (a server and a transport per request,
 * nothing kept between requests), answered as JSON. The key travels in `X-API-Key`; each tool call
 * goes through the capture route's own path (rate limit, quota, tier, browser time, egress guard,
 * fair queue). Other MCP messages spend no quota but need a valid key and are counted per key on
 * this instance (`mcpMessageLimit`), and a key has at most twice its tier's concurrent captures in
 * flight here.
 */
export class McpRoute {
  /** MCP requests in flight per key id; an entry goes when its count is back to zero. */
  private readonly inFlight = new Map<string, number>();
  private readonly countMessage: ReturnType<typeof mcpMessageRate>;

  constructor(
    private readonly engine: CaptureEngine,
    private readonly options: ResolvedHttpOptions,
  ) {
    this.countMessage = mcpMessageRate(options.policy.tiers);
  }

  async handle(request: HttpRequest, captureOptions: CaptureOptions): Promise<RouteAnswer> {
    const { options } = this;
    const none = Object.create(null) as Record<string, unknown>;
    // The key in the header only: a JSON-RPC body has no place for it, and a query would end up in logs.
    const caller = await identify(options.keyStore, request, none, none);
    const headers: Record<string, string> = {};
    if (caller.kind === 'anonymous') {
      const rate = await countRequest(options, caller, request, headers);
      return { route: 'mcp', response: errorResponse(rate.allowed ? caller.refusal : rateLimitExceeded(rate), headers, options.log) };
    }
    const answer: RouteAnswer = { route: 'mcp', keyId: caller.record.id, tier: caller.record.tier, response: { status: 200, headers } };
    try {
      if (request.method.toUpperCase() !== 'POST') throw methodNotAllowed('POST');
      if (request.bodyTooLarge) throw payloadTooLarge(options.bodyLimit);
      const message = jsonRpcMessage(request.body);
      if (!('method' in message && message.method === 'tools/call')) {
        const refusal = await this.countMessage(caller.record.id, caller.record.tier);
        if (refusal) throw refusal;
      }
      answer.response = await this.gated(caller, () => this.answer(request, caller, message, captureOptions, answer));
    } catch (error) {
      answer.response = errorResponse(error, headers, options.log);
    }
    return answer;
  }

  /**
   * Counted here, exactly, and where the policy counts its limits (with Redis, across instances):
   * requests spread over several instances are held to the same limit.
   */
  private async gated(caller: Account, respond: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const { id, tier } = caller.record;
    const { policy } = this.options;
    const limit = mcpInFlightLimit(policy.tiers[tier]);
    const tooMany = (): CaptureError => new CaptureError('RATE_LIMIT_EXCEEDED', `At most ${limit} MCP requests of one ${tier} key at once`, { details: { limit }, headers: { 'Retry-After': '1' } });
    const running = this.inFlight.get(id) ?? 0;
    if (running >= limit) throw tooMany();
    this.inFlight.set(id, running + 1);
    try {
      const release = policy.holdMcpRequest ? await policy.holdMcpRequest(id, tier) : async () => {};
      if (!release) throw tooMany();
      try {
        return await respond();
      } finally {
        // The answer is made: a store that fails now costs a slot until its window ends, not the answer.
        await release().catch((error: unknown) => this.options.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'MCP slot not given back'));
      }
    } finally {
      const left = (this.inFlight.get(id) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(id);
      else this.inFlight.set(id, left);
    }
  }

  private async answer(request: HttpRequest, caller: Account, message: object, captureOptions: CaptureOptions, answer: RouteAnswer): Promise<HttpResponse> {
    const { engine, options } = this;
    const origin = originOf(request);
    // A tool call's refusal, for the log and the metrics: the HTTP answer itself is a 200 carrying it.
    let refused: string | undefined;
    const run: RunCapture = async (params) => {
      const captured = await answerCapture(engine, options, { route: 'mcp', request, caller, params }, captureOptions);
      Object.assign(answer, { format: captured.format, scenario: captured.scenario, captureId: captured.captureId, bytes: captured.bytes, browserSeconds: captured.browserSeconds, toolCall: true });
      refused = captured.response.code;
      Object.assign(answer.response.headers, withoutBodyHeaders(captured.response.headers));
      const body = JSON.parse(String(captured.response.body)) as Record<string, unknown>;
      if (captured.response.status !== 200) throw new ToolRefusal(body);
      const url = String(body.url);
      return { description: body, key: url.slice(options.routes.filesPrefix.length), uri: new URL(url, origin).href };
    };
    // The tools link to stored files: without a storage there is nothing to link to.
    if (!options.storage) throw new Error('The MCP route needs a storage');
    const server = captureMcpServer(options.storage, run);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const webRequest = new Request(new URL(request.url, origin), { method: 'POST', headers: webHeaders(request.headers) });
      const response = await transport.handleRequest(webRequest, { parsedBody: message });
      const body = Buffer.from(await response.arrayBuffer());
      return { status: response.status, headers: { ...answer.response.headers, ...Object.fromEntries(response.headers), 'Content-Length': String(body.length) }, body, code: refused };
    } finally {
      await server.close();
    }
  }
}

/** One JSON-RPC message: a batch (an array) is refused, so that one request is at most one tool call. */
function jsonRpcMessage(body: HttpRequest['body']): object {
  let value: unknown = body;
  if (body === undefined || body instanceof Uint8Array) {
    try {
      value = JSON.parse(Buffer.from(body ?? new Uint8Array()).toString('utf8'));
    } catch {
      throw captureErrors.invalidParameter('body', 'An MCP request body is one JSON-RPC message', 'a JSON object');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw captureErrors.invalidParameter('body', 'An MCP request body is one JSON-RPC message, not a batch', 'a JSON object');
  return value;
}

/** Where this service is reached, for the links to stored files (`X-Forwarded-Proto: https` behind a TLS proxy). */
function originOf(request: HttpRequest): string {
  const proto = request.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${String(request.headers.host ?? 'localhost')}`;
}

function webHeaders(headers: HttpRequest['headers']): Headers {
  const web = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) web.append(name, one);
  }
  return web;
}

/** The limit headers of a tool call's capture, without those of its own (JSON) body. */
function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { 'Content-Type': _type, 'Content-Length': _length, 'Server-Timing': _timing, ...rest } = headers;
  return rest;
}
