/**
 * The resident session is closed after it has been idle for a while (its ~1.2 GB go back), and
 * loaded again by the next job; a job taking it meanwhile keeps it. The pool over a data
 * folder's model registry, as the engine makes it; real IS-Net session (loaded from the
 * machine's optimised copy; no inference).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../../../test/helpers/engine'
import { openDatabase, type Db } from '../../store/db'
import { ModelPool } from './pool'
import { ModelRegistry } from './registry'

let pool: ModelPool | null = null
let db: Db | null = null
let dir: string | null = null
afterEach(async () => {
  await pool?.close()
  db?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
  pool = null
  db = null
  dir = null
})

/** A pool on a new data folder's registry (the built-in models, `medium` the default), closing idle sessions after `idleCloseMs`. */
function newPool(idleCloseMs: number): ModelPool {
  dir = tempDir('clipdesk-pool-')
  db = openDatabase(join(dir, 'clipdesk.db'))
  pool = new ModelPool(new ModelRegistry(db, 'medium'), { idleCloseMs })
  return pool
}

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('the model pool', () => {
  it('closes a session idle for the idle time, and loads it again on the next acquire', async () => {
    const pool = newPool(300)
    const first = await pool.acquire('medium')
    expect(pool.status('medium')?.activeDevice).toBe('cpu')
    pool.release(first)
    await until('the idle session is closed', () => pool.status('medium') === null)
    const second = await pool.acquire('medium')
    expect(second).not.toBe(first)
    expect(pool.status('medium')?.settings.backend).toBe('native')
    pool.release(second)
  })

  it('keeps a session taken again before the idle time ends', async () => {
    const pool = newPool(400)
    const s = await pool.acquire(null)
    pool.release(s)
    const again = await pool.acquire(null)
    expect(again).toBe(s)
    // Held past the idle time: still resident.
    await new Promise((r) => setTimeout(r, 600))
    expect(pool.status('medium')).not.toBeNull()
    pool.release(again)
  })
})
