/**
 * The resident session is closed after it has been idle for a while (its ~1.2 GB go back), and
 * loaded again by the next job; a job taking it meanwhile keeps it. Real engine, real IS-Net
 * session (loaded from the machine's optimised copy; no inference).
 */
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/helpers/engine'
import { Engine } from '../engine'

let engine: Engine | null = null
let dir: string | null = null
afterEach(async () => {
  await engine?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
  engine = null
})

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('the model pool', () => {
  it('closes a session idle for the idle time, and loads it again on the next acquire', async () => {
    dir = tempDir('clipdesk-pool-')
    engine = new Engine({ dataDir: dir, modelIdleCloseMs: 300 })
    const pool = engine.modelPool
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
    dir = tempDir('clipdesk-pool-')
    engine = new Engine({ dataDir: dir, modelIdleCloseMs: 400 })
    const pool = engine.modelPool
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
