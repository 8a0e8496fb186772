import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Connections that do not open, and sockets that stay silent, count as a storage that is down. */
const CONNECT_TIMEOUT_MS = 5_000;
const SOCKET_TIMEOUT_MS = 60_000;

/** Where and as whom to reach an S3-compatible server. */
export interface S3ClientSettings {
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  credentials?: S3ClientConfig['credentials'];
}

export function flag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false (1 or 0), not '${value}'`);
}

export function createS3Client(options: S3ClientSettings): S3Client {
  return new S3Client({
    endpoint: options.endpoint,
    region: options.region ?? (options.endpoint ? 'us-east-1' : undefined),
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Newer SDKs add CRC checksums to every request and check them on every response by default,
    // which most S3-compatible servers refuse or do not send.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: SOCKET_TIMEOUT_MS },
  });
}

/** `captures`, `/captures/` → `captures/`; none → ''. */
export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed ? `${trimmed}/` : '';
}
