import { describe, expect, it } from 'vitest'
import { type BatchCounts, batchCounts, batchOutcome } from './batches'

const outcome = (c: Partial<BatchCounts>, more: { interrupted?: boolean; progress?: number; expected_files?: number | null } = {}) =>
  batchOutcome({
    counts: batchCounts(c),
    interrupted: more.interrupted ?? false,
    progress: more.progress ?? 100,
    expected_files: more.expected_files ?? null
  })

describe('batchOutcome: what happened, in words, and a bar that is full and green only when every file succeeded', () => {
  it('a batch stopped after 9 of 44', () => {
    expect(outcome({ total: 44, done: 9, cancelled: 35, not_started: 35 })).toEqual({
      kind: 'stopped',
      title: 'Stopped: 9 done, 35 not started',
      bar: 20
    })
    expect(outcome({ total: 44, done: 9, failed: 1, cancelled: 34, not_started: 32 }).title).toBe(
      'Stopped: 9 done, 1 failed, 2 stopped while running, 32 not started'
    )
  })

  it('failures: "Done with 2 errors", and "Failed" when none could be made', () => {
    expect(outcome({ total: 45, done: 43, failed: 2 })).toEqual({ kind: 'done-with-errors', title: 'Done with 2 errors', bar: 95 })
    expect(outcome({ total: 1, done: 0, failed: 1 })).toEqual({ kind: 'failed', title: 'Failed: the file could not be made', bar: 0 })
    expect(outcome({ total: 5, failed: 5 }).title).toBe('Failed: none of the 5 files could be made')
  })

  it('warnings: "Done with 2 warnings" in amber, never the green "Done: all"; with errors, both are said', () => {
    expect(outcome({ total: 3, done: 3, warnings: 2 })).toEqual({ kind: 'done-with-warnings', title: 'Done with 2 warnings', bar: 100 })
    expect(outcome({ total: 3, done: 3, warnings: 1 }).title).toBe('Done with 1 warning')
    expect(outcome({ total: 4, done: 3, failed: 1, warnings: 2 })).toEqual({
      kind: 'done-with-errors',
      title: 'Done with 1 error, 2 warnings',
      bar: 75
    })
    // No warnings counted (a count from before warnings were counted): the plain end state.
    expect(outcome({ total: 3, done: 3, warnings: 0 }).kind).toBe('done')
    expect(
      batchOutcome({ counts: { ...batchCounts({ total: 2, done: 2 }), warnings: undefined }, interrupted: false, progress: 100 }).title
    ).toBe('Done: all 2 files')
    // A stopped or running batch says how it stands first; its warnings wait for its end.
    expect(outcome({ total: 4, done: 2, cancelled: 2, not_started: 2, warnings: 1 }).kind).toBe('stopped')
    expect(outcome({ total: 4, done: 2, running: 2, warnings: 1 }, { progress: 60 }).kind).toBe('running')
  })

  it('done, running, interrupted, empty', () => {
    expect(outcome({ total: 45, done: 45 })).toEqual({ kind: 'done', title: 'Done: all 45 files', bar: 100 })
    expect(outcome({ total: 1, done: 1 }).title).toBe('Done: 1 file')
    expect(outcome({ total: 10, done: 3, running: 2, waiting: 5 }, { progress: 41 })).toEqual({
      kind: 'running',
      title: 'Running: 3 of 10 done',
      bar: 41
    })
    expect(outcome({ total: 10, done: 3, waiting: 7 }, { interrupted: true }).title).toBe('Interrupted: 3 done, 7 to do')
    expect(outcome({}).kind).toBe('empty')
  })

  it('counts the announced total while files are still being added: the total does not grow', () => {
    expect(outcome({}, { expected_files: 45 })).toEqual({ kind: 'running', title: 'Adding 45 files…', bar: 0 })
    expect(outcome({ total: 12, running: 2, waiting: 10 }, { expected_files: 45, progress: 30 })).toMatchObject({
      title: 'Running: 0 of 45 done',
      bar: 8
    })
  })
})
