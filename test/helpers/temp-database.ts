import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import type { Mode } from '../../src/shared/api'
import { openDatabase, type Db } from '../../src/main/engine/store/db'
import type { NewJob } from '../../src/main/engine/store/jobs'
import { tempDir } from './engine'

/**
 * A fresh data-folder database (the engine's migrations applied) in a temp folder for each test
 * of the calling file, closed and removed after it. Returns the current test's database.
 */
export function tempDatabase(): () => Db {
  let dir = ''
  let db: Db | null = null
  beforeEach(() => {
    dir = tempDir()
    db = openDatabase(join(dir, 'test.db'))
  })
  afterEach(() => {
    db?.close()
    db = null
    rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    if (!db) throw new Error('tempDatabase() is read inside a test')
    return db
  }
}

/** The row of a `file_url` job of `keyId` (its input not fetched yet), as the upload inserts it. */
export function urlJob(id: string, keyId: string, mode: Mode = 'clipping'): NewJob {
  return {
    id,
    keyId,
    mode,
    outputFormat: 'png',
    deliveryMode: 'url',
    params: null,
    sourceKind: 'url',
    source: 'https://x.example/a',
    inputPath: null
  }
}
