/**
 * A batch item as the screens receive it, for the renderer's tests (the store's and a row's):
 * queued, nothing made yet, with the fields a test names set over it. Used by tests only.
 */
import type { BatchItemView } from '../../../shared/batches'

export function batchItem(id: string, seq: number, over: Partial<BatchItemView> = {}): BatchItemView {
  return {
    rev: 0,
    id,
    batch_id: 'b1',
    seq,
    name: `${id}.png`,
    rel_path: `${id}.png`,
    status: 'queued',
    state: 'pending',
    progress: 0,
    job_id: null,
    error: null,
    error_detail: null,
    uncertainty: null,
    warnings: [],
    outputs: [],
    model: null,
    device: null,
    thumb_url: '',
    before_url: null,
    not_image: false,
    touch_ups: 0,
    touched_up_at: null,
    after_url: null,
    started_at: null,
    finished_at: null,
    ...over
  }
}
