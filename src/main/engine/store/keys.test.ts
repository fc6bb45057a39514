import { beforeEach, describe, expect, it } from 'vitest'
import { tempDatabase, urlJob } from '../../../../test/helpers/temp-database'
import { JobStore } from './jobs'
import { KeyStore } from './keys'

const database = tempDatabase()
let keys: KeyStore
let jobs: JobStore

beforeEach(() => {
  keys = new KeyStore(database())
  jobs = new JobStore(database())
})

function insertJob(id: string, keyId: string): void {
  jobs.insert(urlJob(id, keyId))
}

describe('KeyStore', () => {
  it('authenticates the secret it created, and nothing else', () => {
    const { key, info } = keys.create({ credits: 2 })
    expect(keys.authenticate(key)?.id).toBe(info.id)
    expect(keys.authenticate(`${key}x`)).toBeNull()
    expect(keys.authenticate('')).toBeNull()
  })

  it('charges down to zero, never below, and refunds once', () => {
    const { info } = keys.create({ credits: 1 })
    insertJob('j1', info.id)
    expect(keys.charge(info.id, 'j1')).toBe(true)
    expect(keys.charge(info.id, 'j2')).toBe(false)
    expect(keys.get(info.id)!.credits).toBe(0)
    keys.refund(info.id, 'j1')
    keys.refund(info.id, 'j1')
    expect(keys.get(info.id)!.credits).toBe(1)
  })

  it('never charges an unlimited key, and never refunds what was not charged', () => {
    const { info } = keys.create({ credits: null })
    expect(keys.charge(info.id, 'j1')).toBe(true)
    keys.refund(info.id, 'j1')
    expect(keys.get(info.id)!.credits).toBeNull()
  })

  it('keeps the balance in a CHECK constraint: it cannot go negative even by direct update', () => {
    const { info } = keys.create({ credits: 0 })
    expect(() => database().prepare('UPDATE api_keys SET credits = -1 WHERE id = ?').run(info.id)).toThrow()
  })

  it('a revoked key no longer authenticates', () => {
    const { key, info } = keys.create({ credits: null })
    expect(keys.revoke(info.id)).toBe(true)
    expect(keys.revoke(info.id)).toBe(false)
    expect(keys.authenticate(key)).toBeNull()
  })
})

describe('JobStore.move', () => {
  it('moves only from the expected status and never lowers progress', () => {
    const { info } = keys.create({ credits: null })
    insertJob('j1', info.id)
    expect(jobs.move('j1', 'queued', 'fetching')).toBe(true)
    expect(jobs.move('j1', 'queued', 'fetching')).toBe(false)
    expect(jobs.move('j1', 'fetching', 'segmenting')).toBe(true)
    jobs.setProgress('j1', 'segmenting', 40)
    expect(jobs.move('j1', 'segmenting', 'queued')).toBe(true)
    expect(jobs.get('j1')).toMatchObject({ status: 'queued', progress: 40 })
    expect(() => jobs.move('j1', 'queued', 'done')).toThrow('illegal job transition')
  })
})
