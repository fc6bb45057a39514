import { readdirSync, readFileSync } from 'node:fs'
import sharp from 'sharp'
import { afterEach, describe, expect, it } from 'vitest'
import { findBuiltScript } from '../../built-script'
import { refineEdges } from './refine'
import { FOLIAGE, fuzzyComposite, type KnownComposite } from '../../../../../test/fixtures/refine-fixtures'
import {
  MAX_REFINE_THREADS,
  prewarmRefineThread,
  REFINE_THREAD_SCRIPT,
  refineOffThread,
  refineThreadCount,
  stopRefineThread
} from './refine-thread'

/** What the model would give: the true alpha seen at 1024², a little blurred. */
async function modelLikeMask(t: KnownComposite) {
  const data = await sharp(t.alpha, { raw: { width: t.width, height: t.height, channels: 1 } })
    .resize(1024, 1024, { fit: 'fill' })
    .blur(1.2)
    .extractChannel(0)
    .raw()
    .toBuffer()
  return { data, width: 1024, height: 1024 }
}

/** Nice values of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    // Fields after the command name (which is in parentheses and may hold spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    out.set(Number(tid), Number(fields[16]))
  }
  return out
}

/** Threads of this process at nice 19 that are not in `known` (the refine thread started since). */
function nicedSince(known: Set<number>): number[] {
  return [...threadNices()].filter(([tid, nice]) => !known.has(tid) && nice === 19).map(([tid]) => tid)
}

/** Refines off-thread and here, and checks the two results are the same bytes. */
async function expectInThreadResult(t: KnownComposite): Promise<void> {
  const mask = await modelLikeMask(t)
  const there = await refineOffThread({ data: t.image, width: t.width, height: t.height }, mask)
  const here = await refineEdges({ data: t.image, width: t.width, height: t.height }, mask)
  expect(there.alpha.equals(here.alpha)).toBe(true)
  expect(there.foreground.equals(here.foreground)).toBe(true)
}

const built = findBuiltScript(REFINE_THREAD_SCRIPT) !== null

afterEach(async () => {
  await stopRefineThread()
})

describe('refine thread', () => {
  it('is built (npm test builds first)', () => {
    expect(built).toBe(true)
  })

  it('gives exactly the in-thread result, and leaves the caller’s pixels alone', async () => {
    const t = fuzzyComposite(480, 360, FOLIAGE)
    const mask = await modelLikeMask(t)
    const before = Buffer.from(t.image)
    const here = await refineEdges({ data: t.image, width: t.width, height: t.height }, mask)
    const there = await refineOffThread({ data: t.image, width: t.width, height: t.height }, mask)
    expect(Buffer.isBuffer(there.alpha) && Buffer.isBuffer(there.foreground)).toBe(true)
    expect(there.alpha.equals(here.alpha)).toBe(true)
    expect(there.foreground.equals(here.foreground)).toBe(true)
    expect(t.image.equals(before)).toBe(true)
  })

  it.runIf(process.platform === 'linux')(
    'starts ahead of the first refine when prewarmed; the warm-up changes no result (Linux)',
    async () => {
      const before = new Set(threadNices().keys())
      prewarmRefineThread()
      // The thread is up, at nice 19, with no refine asked of it yet (its warm-up runs there).
      await expect.poll(() => nicedSince(before).length, { timeout: 10_000 }).toBeGreaterThan(0)
      const started = new Set(threadNices().keys())
      await expectInThreadResult(fuzzyComposite(480, 360, FOLIAGE))
      // The refine ran on the prewarmed thread: no thread of nice 19 was started for it.
      expect(nicedSince(started)).toEqual([])
    }
  )

  it.runIf(process.platform === 'linux')('runs on a thread of its own at nice 19 while this one keeps its priority (Linux)', async () => {
    const t = fuzzyComposite(160, 120, FOLIAGE)
    const mainNice = threadNices().get(process.pid)
    const before = new Set(threadNices().keys())
    await refineOffThread({ data: t.image, width: t.width, height: t.height }, await modelLikeMask(t))
    expect(nicedSince(before).length).toBeGreaterThan(0)
    expect(threadNices().get(process.pid)).toBe(mainNice)
  })

  it('a spare refine runs on a second thread beside the jobs’ (where the machine has two cores); a job’s refines keep to one', async () => {
    const a = fuzzyComposite(480, 360, FOLIAGE)
    const b = fuzzyComposite(320, 240, FOLIAGE)
    const [ma, mb] = await Promise.all([modelLikeMask(a), modelLikeMask(b)])
    // Two job refines at once: one thread, the second waits.
    await Promise.all([
      refineOffThread({ data: a.image, width: a.width, height: a.height }, ma),
      refineOffThread({ data: b.image, width: b.width, height: b.height }, mb)
    ])
    expect(refineThreadCount()).toBe(1)
    const [ra, rb] = await Promise.all([
      refineOffThread({ data: a.image, width: a.width, height: a.height }, ma),
      refineOffThread({ data: b.image, width: b.width, height: b.height }, mb, undefined, true)
    ])
    expect(refineThreadCount()).toBe(Math.min(2, MAX_REFINE_THREADS))
    expect(ra.alpha.equals((await refineEdges({ data: a.image, width: a.width, height: a.height }, ma)).alpha)).toBe(true)
    expect(rb.alpha.equals((await refineEdges({ data: b.image, width: b.width, height: b.height }, mb)).alpha)).toBe(true)
    // Another spare refine takes the same spare thread: no third starts.
    await refineOffThread({ data: b.image, width: b.width, height: b.height }, mb, undefined, true)
    expect(refineThreadCount()).toBe(Math.min(2, MAX_REFINE_THREADS))
  })

  it('an aborted refine rejects with the abort reason, and the thread goes on serving', async () => {
    const t = fuzzyComposite(480, 360, FOLIAGE)
    const mask = await modelLikeMask(t)
    const ctrl = new AbortController()
    const pending = refineOffThread({ data: t.image, width: t.width, height: t.height }, mask, ctrl.signal)
    ctrl.abort(new Error('job cancelled'))
    await expect(pending).rejects.toThrow('job cancelled')
    const again = await refineOffThread({ data: t.image, width: t.width, height: t.height }, mask)
    expect(again.alpha.length).toBe(t.width * t.height)
  })

  it('a thread that dies fails the refines it held (reason pipeline_crashed), and the next refine starts a new one', async () => {
    const t = fuzzyComposite(480, 360, FOLIAGE)
    const mask = await modelLikeMask(t)
    const held = refineOffThread({ data: t.image, width: t.width, height: t.height }, mask)
    await stopRefineThread()
    await expect(held).rejects.toMatchObject({ reason: 'pipeline_crashed' })
    const next = await refineOffThread({ data: t.image, width: t.width, height: t.height }, mask)
    const here = await refineEdges({ data: t.image, width: t.width, height: t.height }, mask)
    expect(next.alpha.equals(here.alpha)).toBe(true)
  })
})

describe('refine thread that cannot start', () => {
  it('runs the refine in this thread instead, with the same result; once a thread can start again, refines go back to one', async () => {
    const saved = process.env.CLIPDESK_REFINE_SCRIPT
    // A script that throws as it loads, as a broken build would.
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const dir = mkdtempSync(join(tmpdir(), 'clipdesk-refine-'))
    const script = join(dir, 'broken.mjs')
    writeFileSync(script, "throw new Error('cannot load')\n")
    process.env.CLIPDESK_REFINE_SCRIPT = script
    try {
      await expectInThreadResult(fuzzyComposite(160, 120, FOLIAGE))
      expect(refineThreadCount()).toBe(0)
    } finally {
      if (saved === undefined) delete process.env.CLIPDESK_REFINE_SCRIPT
      else process.env.CLIPDESK_REFINE_SCRIPT = saved
    }
    // The cause is gone (as descriptors come free after a flood): after the wait a new thread
    // is tried, and the refines run there again, with the same result.
    const t = fuzzyComposite(160, 120, FOLIAGE)
    const mask = await modelLikeMask(t)
    await expect
      .poll(async () => {
        await refineOffThread({ data: t.image, width: t.width, height: t.height }, mask)
        return refineThreadCount()
      })
      .toBe(1)
    await expectInThreadResult(t)
  })
})
