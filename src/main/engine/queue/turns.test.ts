import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../store/jobs'
import { KeyTurns } from './turns'

const head = (id: string, keyId: string | null): JobRecord => ({ id, keyId }) as JobRecord

describe('KeyTurns', () => {
  it('gives the turn to the key served least recently; between keys not served yet, to the oldest head', () => {
    const turns = new KeyTurns()
    expect(turns.pick([])).toBeNull()
    expect(turns.pick([head('a1', 'a'), head('b1', 'b')])!.id).toBe('a1')
    turns.served('a')
    expect(turns.pick([head('a2', 'a'), head('b1', 'b'), head('n1', null)])!.id).toBe('b1')
    turns.served('b')
    expect(turns.pick([head('a2', 'a'), head('b2', 'b'), head('n1', null)])!.id).toBe('n1')
    turns.served(null)
    expect(turns.pick([head('a2', 'a'), head('b2', 'b')])!.id).toBe('a2')
    turns.served('a')
    // A key that was served longer ago goes first, whatever the age of the others' jobs.
    expect(turns.pick([head('a3', 'a'), head('b2', 'b')])!.id).toBe('b2')
  })
})
