import { captureErrors } from '../../core/errors/factories.js';

/** Socket errors that mean the storage cannot be reached right now. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** What the AWS SDK attaches to the errors it throws. */
interface SdkError extends Error {
  code?: string;
  errors?: unknown[];
  $metadata?: { httpStatusCode?: number };
}

/**
 * Whether an S3 call failed because the storage is down (refused, unreachable, timed out,
 * throttled, 5xx) rather than because of the request (missing key, denied, wrong bucket).
 */
export function isStorageDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const failure = error as SdkError;
  const status = failure.$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  if (failure.name === 'TimeoutError' || failure.name === 'RequestTimeout') return true;
  if (failure.code !== undefined && UNREACHABLE.has(failure.code)) return true;
  // Happy eyeballs reports every address it tried in one AggregateError.
  if (failure.errors?.some(isStorageDown)) return true;
  return failure.cause !== undefined && failure.cause !== error && isStorageDown(failure.cause);
}

/** A storage that is down answers `503 SERVICE_BUSY` (`reason: storage_unavailable`); other failures pass unchanged. */
export function asStorageFailure(error: unknown): unknown {
  return isStorageDown(error) ? captureErrors.storageUnavailable(error) : error;
}

/** HeadObject and GetObject of a key that is not there. */
export function isMissing(error: unknown): boolean {
  const failure = error as SdkError | undefined;
  return failure?.name === 'NotFound' || failure?.name === 'NoSuchKey' || failure?.$metadata?.httpStatusCode === 404;
}

/** An operation the server does not offer (some S3-compatible servers lack ListMultipartUploads). */
export function isNotImplemented(error: unknown): boolean {
  const failure = error as SdkError | undefined;
  return failure?.name === 'NotImplemented' || failure?.$metadata?.httpStatusCode === 501;
}
