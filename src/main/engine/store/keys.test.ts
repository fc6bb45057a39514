import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/helpers/engine'
import { openDatabase, type Db } from './db'
import { JobStore } from './jobs'
import { KeyStore } from './keys'

let dir: string
let db: Db
let keys: KeyStore
let jobs: JobStore

beforeEach(() => {
  dir = tempDir()
  db = openDatabase(join(dir, 'test.db'))
  keys = new KeyStore(db)
  jobs = new JobStore(db)
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

function insertJob(id: string, keyId: string): void {
  jobs.insert({
    id,
    keyId,
    mode: 'clipping',
    outputFormat: 'png',
    deliveryMode: 'url',
    params: null,
    sourceKind: 'url',
    source: 'https://x.example/a',
    inputPath: null
  })
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
    expect(() => db.prepare('UPDATE api_keys SET credits = -1 WHERE id = ?').run(info.id)).toThrow()
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
