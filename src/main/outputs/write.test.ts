/**
 * The one writer on real files: numbering, the resume record, never over a file it did not
 * write (also one that appears after its name was chosen), replacing only its own outputs,
 * and no temp file left behind.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/helpers/engine'
import { writeOutputs, type ResumeRecord } from './write'

let root: string
let out: string
let results: string

beforeEach(() => {
  root = tempDir('clipdesk-write-')
  out = join(root, 'out')
  results = join(root, 'results')
  mkdirSync(results)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

function result(name: string, text: string): string {
  const path = join(results, name)
  writeFileSync(path, text)
  return path
}

/** A record in memory, as a feature keeps one in its own storage. */
function memoryRecord(over: Partial<ResumeRecord> = {}): ResumeRecord & { plans: string[][]; written: string[] } {
  const rec = {
    plans: [] as string[][],
    written: [] as string[],
    planned: () => null,
    ownsWritten: () => false,
    heldByOther: () => false,
    plan(paths: readonly string[]) {
      rec.plans.push([...paths])
    },
    wrote(path: string) {
      rec.written.push(path)
    },
    ...over
  }
  return rec
}

const visible = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()

describe('writeOutputs', () => {
  it('writes under the rendered names, mirroring folders, and records the names before writing', async () => {
    const rec = memoryRecord()
    const written = await writeOutputs([{ from: result('a', 'A'), target: join(out, 'day1', 'a.png') }], out, rec)
    expect(written).toEqual([join(out, 'day1', 'a.png')])
    expect(rec.plans).toEqual([[join(out, 'day1', 'a.png')]])
    expect(rec.written).toEqual(written)
    expect(readFileSync(written[0]!, 'utf8')).toBe('A')
    expect(visible(out)).toEqual(['day1', 'day1/a.png'])
  })

  it('numbers past files on disk and names another input holds', async () => {
    mkdirSync(out)
    writeFileSync(join(out, 'a.png'), 'the user’s own')
    const rec = memoryRecord({ heldByOther: (p) => p === join(out, 'a-1.png') })
    const written = await writeOutputs([{ from: result('a', 'A'), target: join(out, 'a.png') }], out, rec)
    expect(written).toEqual([join(out, 'a-2.png')])
    expect(readFileSync(join(out, 'a.png'), 'utf8')).toBe('the user’s own')
  })

  it('never writes over a file that appears under the chosen name after the check: the next name is chosen', async () => {
    // Another program takes the name right after it was chosen (between the check and the write).
    mkdirSync(out)
    const rec = memoryRecord({
      plan(paths) {
        rec.plans.push([...paths])
        if (rec.plans.length === 1) writeFileSync(paths[0]!, 'appeared meanwhile')
      }
    })
    const written = await writeOutputs([{ from: result('a', 'A'), target: join(out, 'a.png') }], out, rec)
    expect(written).toEqual([join(out, 'a-1.png')])
    expect(readFileSync(join(out, 'a.png'), 'utf8')).toBe('appeared meanwhile')
    expect(readFileSync(join(out, 'a-1.png'), 'utf8')).toBe('A')
    expect(rec.plans).toEqual([[join(out, 'a.png')], [join(out, 'a-1.png')]])
    expect(visible(out)).toEqual(['a-1.png', 'a.png']) // no temp file left
  })

  it('uses the names chosen before a crash again: a name already holding this result is its own finished write', async () => {
    mkdirSync(out)
    writeFileSync(join(out, 'a.png'), 'A') // written before the crash, not yet recorded
    const rec = memoryRecord({ planned: () => [join(out, 'a.png'), join(out, 'a.mask.png')] })
    const written = await writeOutputs(
      [
        { from: result('a', 'A'), target: join(out, 'a.png') },
        { from: result('m', 'M'), target: join(out, 'a.mask.png') }
      ],
      out,
      rec
    )
    expect(written).toEqual([join(out, 'a.png'), join(out, 'a.mask.png')])
    expect(visible(out)).toEqual(['a.mask.png', 'a.png'])
  })

  it('replaces only its own earlier outputs; a planned name now holding someone else’s file is left alone', async () => {
    mkdirSync(out)
    writeFileSync(join(out, 'a.png'), 'old version of this input')
    writeFileSync(join(out, 'b.png'), 'someone else')
    const own = memoryRecord({ planned: () => [join(out, 'a.png')], ownsWritten: (p) => p === join(out, 'a.png') })
    expect(await writeOutputs([{ from: result('a2', 'A2'), target: join(out, 'a.png') }], out, own)).toEqual([join(out, 'a.png')])
    expect(readFileSync(join(out, 'a.png'), 'utf8')).toBe('A2')
    const planned = memoryRecord({ planned: () => [join(out, 'b.png')] })
    expect(await writeOutputs([{ from: result('b', 'B'), target: join(out, 'b.png') }], out, planned)).toEqual([join(out, 'b-1.png')])
    expect(readFileSync(join(out, 'b.png'), 'utf8')).toBe('someone else')
  })

  it('refuses to write through a symbolic link inside the output folder', async () => {
    const { symlinkSync } = await import('node:fs')
    mkdirSync(out)
    mkdirSync(join(root, 'elsewhere'))
    symlinkSync(join(root, 'elsewhere'), join(out, 'day1'))
    await expect(writeOutputs([{ from: result('a', 'A'), target: join(out, 'day1', 'a.png') }], out, memoryRecord())).rejects.toThrow(
      /symbolic link/
    )
    expect(existsSync(join(root, 'elsewhere', 'a.png'))).toBe(false)
  })
})
