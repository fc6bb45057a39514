import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fingerprintOf, type CpuProfile } from './machine'
import { chooseThreads, fastest, threadCandidates, TuningRecords } from './tuning'

const profile = (logical: number, physical: number | null): CpuProfile => {
  const p = { model: 'Test CPU', logical, physical, simd: ['avx2'], platform: 'linux', arch: 'x64', ort: '1.30.0' }
  return { ...p, fingerprint: fingerprintOf(p) }
}

const dirs: string[] = []
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'clipdesk-tuning-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('thread candidates', () => {
  it('are the physical cores and every hardware thread, smallest first, without repeats', () => {
    expect(threadCandidates(profile(2, 2))).toEqual([2])
    expect(threadCandidates(profile(16, 8))).toEqual([8, 16])
    expect(threadCandidates(profile(1, 1))).toEqual([1])
  })

  it('where the platform does not say (Windows), half and all of the hardware threads from 4 up', () => {
    expect(threadCandidates(profile(12, null))).toEqual([6, 12])
    expect(threadCandidates(profile(2, null))).toEqual([2])
  })
})

describe('the fastest count', () => {
  it('is the quickest, but a count within 3 % of a smaller one loses to it', () => {
    expect(fastest({ 8: 300, 16: 250 })).toBe(16)
    expect(fastest({ 8: 300, 16: 295 })).toBe(8)
    expect(fastest({ 4: 500, 8: 200, 16: 198 })).toBe(8)
  })
})

describe('chooseThreads', () => {
  it('takes a given count as it is, and measures nothing', async () => {
    const measured: number[] = []
    const c = await chooseThreads(profile(16, 8), 'm', null, 3, async (t) => {
      measured.push(t)
      return 1
    })
    expect(c).toEqual({ threads: 3, chosenBy: 'setting', runMs: null, measuredAt: null })
    expect(measured).toEqual([])
  })

  it('with one candidate measures nothing, and remembers it', async () => {
    const dir = tempDir()
    const records = new TuningRecords(dir)
    const c = await chooseThreads(profile(2, 2), 'm', records, undefined, async () => {
      throw new Error('must not measure')
    })
    expect(c).toMatchObject({ threads: 2, chosenBy: 'only-choice' })
    expect(records.get('m', profile(2, 2).fingerprint)).toEqual(c)
  })

  it('measures each candidate once, keeps the fastest, and answers from the record next time', async () => {
    const dir = tempDir()
    const p = profile(16, 8)
    const times: Record<number, number> = { 8: 410.4, 16: 350.2 }
    const measured: number[] = []
    const first = await chooseThreads(p, 'isnet-medium@abc', new TuningRecords(dir), undefined, async (t) => {
      measured.push(t)
      return times[t]!
    })
    expect(measured).toEqual([8, 16])
    expect(first).toMatchObject({ threads: 16, chosenBy: 'measured', runMs: { 8: 410, 16: 350 } })
    expect(Date.parse(first.measuredAt!)).not.toBeNaN()

    const again = await chooseThreads(p, 'isnet-medium@abc', new TuningRecords(dir), undefined, async () => {
      throw new Error('must not measure again')
    })
    expect(again).toEqual(first)
    // Another machine (fingerprint) or another model measures again.
    const other = profile(16, 8)
    const otherMachine = { ...other, model: 'Other CPU', fingerprint: fingerprintOf({ ...other, model: 'Other CPU' }) }
    const again2: number[] = []
    await chooseThreads(otherMachine, 'isnet-medium@abc', new TuningRecords(dir), undefined, async (t) => {
      again2.push(t)
      return 1
    })
    await chooseThreads(p, 'isnet-small@def', new TuningRecords(dir), undefined, async (t) => {
      again2.push(t)
      return 1
    })
    expect(again2).toEqual([8, 16, 8, 16])
  })

  it('a record that is not valid is measured again', async () => {
    const dir = tempDir()
    const p = profile(16, 8)
    const records = new TuningRecords(dir)
    records.set('m', p.fingerprint, { threads: 0, chosenBy: 'measured', runMs: null, measuredAt: null })
    expect(records.get('m', p.fingerprint)).toBeNull()
    const c = await chooseThreads(p, 'm', records, undefined, async (t) => (t === 8 ? 100 : 200))
    expect(c.threads).toBe(8)
    expect(JSON.parse(readFileSync(join(dir, 'tuning', `m-${p.fingerprint}.json`), 'utf8')).threads).toBe(8)
  })
})
