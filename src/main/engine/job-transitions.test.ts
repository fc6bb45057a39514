import { describe, expect, it } from 'vitest'
import { JOB_STATUSES, STATE_OF, isEnded } from '../../shared/api'
import { assertTransition, canTransition, IllegalTransitionError, TRANSITIONS } from './job-transitions'

describe('TRANSITIONS', () => {
  it('lists every status', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...JOB_STATUSES].sort())
  })

  it('lets a job walk the happy path from queued to done', () => {
    const path = ['queued', 'segmenting', 'pending_compose', 'encoding', 'done'] as const
    for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1]!, path[i]!)).toBe(true)
    expect(canTransition('queued', 'fetching')).toBe(true)
    expect(canTransition('fetching', 'segmenting')).toBe(true)
  })

  it('lets every non-terminal status fail or be cancelled', () => {
    for (const s of JOB_STATUSES.filter((s) => !isEnded(s))) {
      expect(canTransition(s, 'failed'), s).toBe(true)
      expect(canTransition(s, 'cancelled'), s).toBe(true)
    }
  })

  it('has no move out of a terminal status, and terminal statuses are exactly done, failed, cancelled', () => {
    expect(JOB_STATUSES.filter(isEnded).sort()).toEqual(['cancelled', 'done', 'failed'])
    for (const s of JOB_STATUSES) expect(TRANSITIONS[s].length === 0, s).toBe(isEnded(s))
    for (const s of JOB_STATUSES) expect(canTransition('done', s)).toBe(false)
  })

  it('never skips forward past a step or moves backward except to resume from queued', () => {
    expect(canTransition('queued', 'done')).toBe(false)
    expect(canTransition('segmenting', 'encoding')).toBe(false)
    expect(canTransition('encoding', 'segmenting')).toBe(false)
    for (const s of JOB_STATUSES) if (canTransition(s, 'queued')) expect(STATE_OF[s]).toBe('pending')
  })

  it('throws a named error for an illegal move', () => {
    expect(() => assertTransition('done', 'queued')).toThrow(IllegalTransitionError)
    expect(() => assertTransition('done', 'queued')).toThrow('illegal job transition done → queued')
    expect(() => assertTransition('queued', 'segmenting')).not.toThrow()
  })
})
