import { describe, expect, it } from 'vitest'
import { type BatchSummary, batchCounts } from '../shared/batches'
import { queueText } from './tray-text'

const summary = (counts: Partial<BatchSummary['counts']>): BatchSummary => ({
  id: 'b',
  name: 'B',
  request: { mode: 'clipping', output_format: 'png', params: null },
  destination: '/out',
  created_at: 1,
  started_at: 1,
  finished_at: 2,
  counts: batchCounts(counts),
  progress: 100,
  interrupted: false,
  expected_files: null,
  rev: 0
})

describe('the tray and menu queue text', () => {
  it('says what runs and waits while the queue is busy', () => {
    expect(queueText({ running: 2, waiting: 5 }, summary({ total: 7 }))).toEqual({
      tooltip: 'Clipdesk — 2 running, 5 waiting',
      menu: 'Show queue (2 running, 5 waiting)'
    })
  })

  it('once empty, says how the latest batch ended, in the words of the batch screen', () => {
    expect(queueText({ running: 0, waiting: 0 }, summary({ total: 44, done: 9, cancelled: 35, not_started: 35 })).tooltip).toBe(
      'Clipdesk — queue empty · last batch: Stopped: 9 done, 35 not started'
    )
    expect(queueText({ running: 0, waiting: 0 }, summary({ total: 45, done: 43, failed: 2 })).menu).toBe(
      'Show batches (last: Done with 2 errors)'
    )
    expect(queueText({ running: 0, waiting: 0 }, summary({ total: 5, failed: 5 })).menu).toBe(
      'Show batches (last: Failed: none of the 5 files could be made)'
    )
    expect(queueText({ running: 0, waiting: 0 }, null)).toEqual({ tooltip: 'Clipdesk — queue empty', menu: 'Show batches' })
  })
})
