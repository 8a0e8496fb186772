import type { Job, JobState } from 'bullmq';
import type { CaptureJobState, CaptureJobStatus } from '../http/async-captures-port.js';
import { reportFields } from '../http/async-captures-port.js';
import { decodeFailure, type CaptureJobData, type CaptureJobResult } from './job-data.js';

const iso = (ms: number | undefined): string | undefined => (ms === undefined || ms === 0 ? undefined : new Date(ms).toISOString());

/** BullMQ's states as the interface names them; a job waiting for its retry is `queued` again. */
export function stateOf(state: JobState | 'unknown'): CaptureJobState | undefined {
  if (state === 'active') return 'processing';
  if (state === 'completed' || state === 'failed') return state;
  if (state === 'unknown') return undefined;
  return 'queued';
}

/** The status document of a job (what `GET {base}/v1/captures/<id>` answers and the webhook POSTs). */
export function jobStatus(job: Job<CaptureJobData, CaptureJobResult>, status: CaptureJobState, overrides: Partial<CaptureJobStatus> = {}): CaptureJobStatus {
  const result = status === 'completed' ? job.returnvalue : undefined;
  return {
    id: job.id as string,
    status,
    created_at: new Date(job.timestamp).toISOString(),
    ...(job.data.requestId ? { request_id: job.data.requestId } : {}),
    ...(iso(job.processedOn) && status !== 'queued' ? { started_at: iso(job.processedOn) } : {}),
    ...(iso(job.finishedOn) && (status === 'completed' || status === 'failed') ? { finished_at: iso(job.finishedOn) } : {}),
    ...(result ? resultFields(result) : {}),
    ...(status === 'failed' ? { error: decodeFailure(job.failedReason) } : {}),
    ...overrides,
  };
}

/** A completed job's result as the status shows it, as a synchronous JSON answer does: `har_url` for its HAR. */
export function resultFields({ url, size, format, ...report }: CaptureJobResult): Partial<CaptureJobStatus> {
  return { url, size, format, ...reportFields(report) };
}
