/**
 * The placer and the previous-version keeper on real links, FIFOs and swapped folders: nothing
 * is read through a link, a FIFO is refused at once (never waited on), a folder swapped for a
 * link is refused, and no byte lands outside; the sweep of left temp files removes only our
 * temp names, only regular files, never through a link.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/helpers/engine'
import { ContainmentError } from './contained-dir'
import { NotOurFile } from './no-follow'
import { NameTaken, placeFile, tempPathFor, writeReplacing } from './place'
import { replaceKeepingPrevious } from './previous'
import { isTempName, sweepTempFiles } from './temp-sweep'

let root: string
let out: string
let outside: string
let result: string

beforeEach(() => {
  root = tempDir('clipdesk-nofollow-')
  out = join(root, 'out')
  outside = join(root, 'outside')
  mkdirSync(out)
  mkdirSync(outside)
  writeFileSync(join(outside, 'secret.txt'), 'secret')
  result = join(root, 'result.png')
  writeFileSync(result, 'NEW')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const listing = (dir: string): string[] => readdirSync(dir).sort()
const mkfifo = (path: string): void => void execFileSync('mkfifo', [path])

async function refusal(run: Promise<unknown>): Promise<Error> {
  const err = await run.then(
    () => null,
    (e: unknown) => e as Error
  )
  expect(err, 'expected a refusal').toBeInstanceOf(ContainmentError)
  return err!
}

describe('keeping the previous version (a touch-up)', () => {
  it("refuses a result replaced by a symbolic link: the link's target is not copied in", async () => {
    symlinkSync(join(outside, 'secret.txt'), join(out, 'girl.png'))
    const err = await refusal(replaceKeepingPrevious([result], [join(out, 'girl.png')], out))
    expect(err).toBeInstanceOf(NotOurFile)
    expect(err.message).toBe(
      `${join(out, 'girl.png')} is a symbolic link, not a regular file; Clipdesk reads and replaces only regular files`
    )
    expect(listing(out)).toEqual(['girl.png'])
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret')
  })

  it('refuses a FIFO at an output name at once, without opening it', async () => {
    mkfifo(join(out, 'girl.png'))
    const err = await refusal(replaceKeepingPrevious([result], [join(out, 'girl.png')], out))
    expect(err.message).toBe(
      `${join(out, 'girl.png')} is a named pipe (FIFO), not a regular file; Clipdesk reads and replaces only regular files`
    )
    expect(listing(out)).toEqual(['girl.png'])
  })

  it('refuses a destination folder swapped for a link to another folder; the other folder is untouched', async () => {
    writeFileSync(join(out, 'girl.png'), 'OLD')
    writeFileSync(join(outside, 'girl.png'), 'THEIRS')
    renameSync(out, join(root, 'moved'))
    symlinkSync(outside, out)
    const err = await refusal(replaceKeepingPrevious([result], [join(out, 'girl.png')], out))
    expect(err.message).toBe(`${out} is a symbolic link now (the folder was moved or replaced); nothing is written through links`)
    expect(listing(outside)).toEqual(['girl.png', 'secret.txt'])
    expect(readFileSync(join(outside, 'girl.png'), 'utf8')).toBe('THEIRS')
  })

  it('keeps a regular file as the previous version and replaces it', async () => {
    writeFileSync(join(out, 'girl.png'), 'OLD')
    expect(await replaceKeepingPrevious([result], [join(out, 'girl.png')], out)).toEqual([join(out, 'girl.prev-1.png')])
    expect(readFileSync(join(out, 'girl.png'), 'utf8')).toBe('NEW')
    expect(readFileSync(join(out, 'girl.prev-1.png'), 'utf8')).toBe('OLD')
    expect(listing(out)).toEqual(['girl.png', 'girl.prev-1.png'])
  })
})

describe('placing a new file', () => {
  it('takes a FIFO or a link at the name as taken (another name is chosen), never reading it', async () => {
    mkfifo(join(out, 'a.png'))
    symlinkSync(result, join(out, 'b.png')) // a link to the very same bytes is still not ours
    await expect(placeFile(result, join(out, 'a.png'), out, false)).rejects.toBeInstanceOf(NameTaken)
    await expect(placeFile(result, join(out, 'b.png'), out, false)).rejects.toBeInstanceOf(NameTaken)
  })

  it('refuses to replace what is not a regular file, and a result that is a link', async () => {
    mkfifo(join(out, 'a.png'))
    expect((await refusal(placeFile(result, join(out, 'a.png'), out, true))).message).toContain(
      'is a named pipe (FIFO), not a regular file'
    )
    const linked = join(root, 'linked.png')
    symlinkSync(join(outside, 'secret.txt'), linked)
    expect((await refusal(placeFile(linked, join(out, 'c.png'), out, false))).message).toContain(`${linked} is a symbolic link`)
    expect(existsSync(join(out, 'c.png'))).toBe(false)
  })

  it('writes a report only as a regular file in a folder that is not a link', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(out, 'report.json'))
    expect((await refusal(writeReplacing(join(out, 'report.json'), '{}'))).message).toContain('is a symbolic link, not a regular file')
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret')
    const swapped = join(root, 'swapped')
    symlinkSync(outside, swapped)
    await refusal(writeReplacing(join(swapped, 'report.json'), '{}'))
    expect(listing(outside)).toEqual(['secret.txt'])
  })
})

describe('the sweep of left temp files', () => {
  it("knows only the placer's temp names", () => {
    expect(isTempName(tempPathFor('/x/photo.png').slice('/x/'.length))).toBe(true)
    for (const name of ['.photo.png.1a2b3c4d.clipdesk-part', '.a.00000000.clipdesk-part']) expect(isTempName(name), name).toBe(true)
    for (const name of [
      'photo.png.1a2b3c4d.clipdesk-part',
      '.photo.png.1a2b3c4.clipdesk-part',
      '.photo.png.1a2b3c4G.clipdesk-part',
      '..1a2b3c4d.clipdesk-part',
      '.photo.png.1a2b3c4d.clipdesk-part.png',
      'photo.png'
    ])
      expect(isTempName(name), name).toBe(false)
  })

  it('removes old temp files (sub-folders included), not fresh ones, not links, FIFOs or other names; never enters a linked folder', async () => {
    const old = Date.now() / 1000 - 3600
    mkdirSync(join(out, 'day1'))
    const left = [join(out, '.a.png.1a2b3c4d.clipdesk-part'), join(out, 'day1', '.b.png.00ff00ff.clipdesk-part')]
    for (const p of left) writeFileSync(p, 'half')
    const fresh = join(out, '.c.png.0a0b0c0d.clipdesk-part')
    writeFileSync(fresh, 'being written')
    const theirs = join(outside, '.d.png.1a2b3c4d.clipdesk-part')
    writeFileSync(theirs, 'not in the destination')
    symlinkSync(outside, join(out, 'linked'))
    symlinkSync(theirs, join(out, '.e.png.1a2b3c4d.clipdesk-part'))
    mkfifo(join(out, '.f.png.1a2b3c4d.clipdesk-part'))
    writeFileSync(join(out, 'photo.png'), 'a result')
    for (const p of [...left, theirs, join(out, 'photo.png')]) utimesSync(p, old, old)

    expect((await sweepTempFiles(out)).sort()).toEqual(left.sort())
    expect(listing(out)).toEqual([
      '.c.png.0a0b0c0d.clipdesk-part',
      '.e.png.1a2b3c4d.clipdesk-part',
      '.f.png.1a2b3c4d.clipdesk-part',
      'day1',
      'linked',
      'photo.png'
    ])
    expect(listing(join(out, 'day1'))).toEqual([])
    expect(existsSync(fresh) && existsSync(theirs)).toBe(true)
  })
})
