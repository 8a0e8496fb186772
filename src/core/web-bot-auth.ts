import { readFile } from 'node:fs/promises';
import { directoryResponseHeaders, HTTP_MESSAGE_SIGNATURES_DIRECTORY, MediaType, signatureHeaders, type Signer } from 'web-bot-auth';
import { Ed25519Signer } from 'web-bot-auth/crypto';

/** Where the directory of a signing agent's keys is served (draft-meunier-http-message-signatures-directory). */
export const SIGNATURES_DIRECTORY_PATH = HTTP_MESSAGE_SIGNATURES_DIRECTORY;
export const SIGNATURES_DIRECTORY_TYPE: string = MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY;

/** Web Bot Auth: sign the browser's requests with an Ed25519 key whose directory `signatureAgent` serves. */
export interface WebBotAuthOptions {
  /** The Ed25519 private key as a JWK (`kty: OKP`, `crv: Ed25519`, `d`, `x`). */
  privateKeyJwk?: JsonWebKey;
  /** Or a file holding that JWK. */
  keyFile?: string;
  /** The `Signature-Agent`: the https URL of the service serving the key directory (`http:` for loopback only). */
  signatureAgent: string;
}

/** Signatures live this long: a page's requests go out at once, and a replay later is refused. */
const SIGNATURE_LIFETIME_MS = 60_000;

/** A loaded signing identity. The private key stays inside `signer`: it is never logged, echoed or served. */
export interface WebBotAuth {
  /** The key's JWK thumbprint (RFC 7638), the signatures' `keyid`. */
  readonly keyId: string;
  /** The public key as served in the directory. */
  readonly publicKey: JsonWebKey;
  /** `Signature-Agent`'s value: the agent URL as a quoted string. */
  readonly signatureAgent: string;
  /** `Signature`, `Signature-Input` and `Signature-Agent` for a request to `url`. */
  requestHeaders(method: string, url: string): Promise<Record<string, string>>;
  /** The directory's body and signed headers, answering a request for it at `url`. */
  directory(url: string): Promise<{ body: string; headers: Record<string, string> }>;
}

/** Loads and checks the key; the error never quotes it. */
export async function loadWebBotAuth(options: WebBotAuthOptions): Promise<WebBotAuth> {
  const jwk = options.privateKeyJwk ?? (options.keyFile === undefined ? undefined : await readJwk(options.keyFile));
  if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw new Error('webBotAuth: the key must be an Ed25519 private JWK (kty OKP, crv Ed25519, d and x)');
  }
  const agent = new URL(options.signatureAgent);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(agent.hostname);
  if (agent.protocol !== 'https:' && !(agent.protocol === 'http:' && loopback)) throw new Error('webBotAuth: signatureAgent must be an https URL (http only for a loopback address)');
  const signer: Signer = await Ed25519Signer.fromJWK(jwk);
  const publicKey: JsonWebKey = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
  const signatureAgent = `"${agent.href}"`;
  const lifetime = (): { created: Date; expires: Date } => {
    const created = new Date();
    return { created, expires: new Date(created.getTime() + SIGNATURE_LIFETIME_MS) };
  };
  return {
    keyId: signer.keyid,
    publicKey,
    signatureAgent,
    async requestHeaders(method, url) {
      const headers = { 'signature-agent': signatureAgent };
      const signed = await signatureHeaders({ method, url, headers }, signer, lifetime());
      return { Signature: signed.Signature, 'Signature-Input': signed['Signature-Input'], 'Signature-Agent': signatureAgent };
    },
    async directory(url) {
      const body = JSON.stringify({ keys: [publicKey] });
      const headers: Record<string, string> = { 'Content-Type': SIGNATURES_DIRECTORY_TYPE, 'Cache-Control': 'max-age=300' };
      const signed = await directoryResponseHeaders({ request: { method: 'GET', url, headers: {} }, response: { status: 200, headers } }, [signer], lifetime());
      return { body, headers: { ...headers, Signature: signed.Signature, 'Signature-Input': signed['Signature-Input'] } };
    },
  };
}

async function readJwk(file: string): Promise<JsonWebKey | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as JsonWebKey;
  } catch {
    throw new Error('webBotAuth: the key file could not be read as a JSON Web Key');
  }
}
