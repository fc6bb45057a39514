/**
 * Temp files a killed copy left in a destination (`.name.1a2b3c4d.clipdesk-part`) are removed
 * when the feature that writes there starts or resumes: `clipdesk process` (a real process),
 * a batch resumed, a watched folder started. Only our temp names go; other files stay.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { openDatabase } from '../src/main/engine/store/db'
import { featureTablesOf } from '../src/main/engine/store/feature-tables'
import { WatchService } from '../src/main/watch/service'
import { runCli } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { FakeProcessor, waitFor } from './helpers/watch'

let root: string
beforeAll(() => {
  root = tempDir('clipdesk-temp-sweep-')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A destination as a copy killed mid-write leaves it: two half-written temp files (an hour old), and files that are not ours to remove. */
function leftBehind(dir: string): { temps: string[]; others: string[] } {
  mkdirSync(join(dir, 'day1'), { recursive: true })
  const temps = [join(dir, '.a.png.1a2b3c4d.clipdesk-part'), join(dir, 'day1', '.b.png.0f0f0f0f.clipdesk-part')]
  const others = [join(dir, '.keep'), join(dir, 'notes.clipdesk-part'), join(dir, 'day1', 'b.png')]
  const old = Date.now() / 1000 - 3600
  for (const p of [...temps, ...others]) {
    writeFileSync(p, 'half a file')
    utimesSync(p, old, old)
  }
  return { temps, others }
}

describe('left temp files in a destination', () => {
  it('clipdesk process removes them before it writes', async () => {
    const input = join(root, 'in')
    mkdirSync(input)
    writeFileSync(
      join(input, 'a.png'),
      await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } })
        .png()
        .toBuffer()
    )
    const out = join(root, 'out')
    const { temps, others } = leftBehind(out)
    const run = runCli(['process', input, '--out', out, '--data-dir', join(root, 'data-cli'), '--params', 'alpha=keep'])
    expect(run.code, run.stderr).toBe(0)
    expect(temps.filter((p) => existsSync(p))).toEqual([])
    expect(others.filter((p) => existsSync(p))).toEqual(others)
    expect(readdirSync(out).filter((n) => n.endsWith('.clipdesk-part'))).toEqual(['notes.clipdesk-part'])
    expect(existsSync(join(out, 'a.png'))).toBe(true)
  })

  it('a batch resumed removes them from its destination', async () => {
    const engine = new Engine({ dataDir: join(root, 'data-batch') })
    engine.start()
    const batches = new BatchService(engine)
    batches.start()
    try {
      const destination = join(root, 'batch-out')
      const batch = await batches.create({ request: { mode: 'clipping', output_format: 'png', params: null }, destination })
      const { temps, others } = leftBehind(destination)
      batches.resume(batch.id)
      await waitFor('the temp files swept', () => temps.every((p) => !existsSync(p)))
      expect(others.filter((p) => existsSync(p))).toEqual(others)
    } finally {
      await batches.stop()
      await engine.stop()
    }
  })

  it('a watched folder started removes them from its output folder', async () => {
    const inbox = join(root, 'inbox')
    mkdirSync(inbox)
    const { temps, others } = leftBehind(join(inbox, 'clipdesk-out'))
    const db = openDatabase(join(root, 'watch.db'))
    const svc = new WatchService({ tables: featureTablesOf(db), processor: new FakeProcessor(join(root, 'results')), log: () => undefined })
    try {
      await svc.start()
      await svc.add({ path: inbox })
      await waitFor('the temp files swept', () => temps.every((p) => !existsSync(p)))
      expect(others.filter((p) => existsSync(p))).toEqual(others)
    } finally {
      await svc.stop()
      db.close()
    }
  })
})
