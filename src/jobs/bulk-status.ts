import type { Job, Queue } from 'bullmq';
import type { BulkItemStatus, BulkPage, BulkStatus, CaptureJobState } from '../http/async-captures-port.js';
import type { BulkJobData, CaptureJobData, CaptureJobResult } from './job-data.js';
import { jobStatus, stateOf } from './job-status.js';

/**
 * A batch's status from its parent job and its items' jobs: every item's state for the counts, and
 * the full status of the items on the page. An item whose job has expired counts as failed.
 */
export async function bulkStatusOf(parent: Job<BulkJobData>, captures: Queue<CaptureJobData, CaptureJobResult>, page: BulkPage): Promise<BulkStatus> {
  const { items } = parent.data;
  const states = await Promise.all(items.map(async ({ id }) => stateOf(await captures.getJobState(id)) ?? 'failed'));
  const counts: Record<CaptureJobState, number> = { queued: 0, processing: 0, completed: 0, failed: 0 };
  for (const state of states) counts[state]++;
  const listed = await Promise.all(
    items.slice(page.offset, page.offset + page.limit).map(async ({ id, itemId }, at): Promise<BulkItemStatus> => {
      const index = page.offset + at;
      const job = await captures.getJob(id);
      const status = job ? jobStatus(job, states[index] as CaptureJobState) : { id, status: 'failed' as const, created_at: new Date(parent.timestamp).toISOString(), error: { code: 'NOT_FOUND', error: 'This item has expired' } };
      return { index, ...(itemId === undefined ? {} : { item_id: itemId }), ...status };
    }),
  );
  const settled = counts.completed + counts.failed === items.length;
  const started = settled || counts.processing > 0 || counts.completed > 0 || counts.failed > 0;
  return {
    id: parent.id as string,
    status: settled ? 'completed' : started ? 'processing' : 'queued',
    created_at: new Date(parent.timestamp).toISOString(),
    ...(parent.data.requestId ? { request_id: parent.data.requestId } : {}),
    ...(settled && parent.finishedOn ? { finished_at: new Date(parent.finishedOn).toISOString() } : {}),
    total: items.length,
    counts,
    offset: page.offset,
    limit: page.limit,
    items: listed,
  };
}
