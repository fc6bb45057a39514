import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readOnlyFolder } from '../../../test/helpers/read-only'
import { checkDestination, Deadline, DestinationProblem, estimateOutputBytes, makeFolder } from './destination'

const root = mkdtempSync(join(tmpdir(), 'clipdesk-dest-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function problemOf(p: Promise<unknown>): Promise<DestinationProblem> {
  const err = await p.then(
    () => null,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(DestinationProblem)
  return err as DestinationProblem
}

describe('checkDestination: the output folder checked once, in plain words', () => {
  it('makes a missing folder level by level and leaves no probe file behind', async () => {
    const dir = join(root, 'a', 'b', 'c')
    expect(await checkDestination(dir, { estimatedBytes: 1024 })).toBe(dir)
    expect(statSync(dir).isDirectory()).toBe(true)
    expect(readdirSync(dir)).toEqual([])
  })

  it('names the file that stands where a folder should be', async () => {
    writeFileSync(join(root, 'notes.txt'), 'a file')
    const p = await problemOf(checkDestination(join(root, 'notes.txt', 'out')))
    expect(p.message).toBe(`${join(root, 'notes.txt')} is a file, not a folder`)
    expect((await problemOf(checkDestination(join(root, 'notes.txt')))).message).toBe(`${join(root, 'notes.txt')} is a file, not a folder`)
  })

  it('says a read-only folder is read-only', async (ctx) => {
    const ro = readOnlyFolder()
    if (!ro) return ctx.skip('no folder refuses writes on this machine')
    const p = await problemOf(checkDestination(ro))
    expect(p.message).toBe(`The folder is read-only: ${ro}`)
    expect(p.detail).toMatch(/^E(ACCES|ROFS|PERM):/)
  })

  it('answers at once for a folder under /proc (a recursive mkdir there never returns)', async () => {
    const p = await problemOf(checkDestination('/proc/clipdesk-out/batch'))
    expect(p.message).toBe('The folder /proc/clipdesk-out cannot be made: /proc does not take new folders')
    expect(existsSync('/proc/clipdesk-out')).toBe(false)
  })

  it('refuses a relative path and an empty one', async () => {
    expect((await problemOf(checkDestination('out'))).message).toMatch(/full path/)
    expect((await problemOf(checkDestination('  '))).message).toBe('Choose a folder for the results.')
  })

  it('refuses a batch whose estimated output does not fit on the disk', async () => {
    const p = await problemOf(checkDestination(join(root, 'big'), { estimatedBytes: 2 ** 62 }))
    expect(p.message).toMatch(/^Not enough space on the disk of .*big: about [\d,]+ MB are needed, [\d,]+ MB are free\.$/)
  })

  it('gives up on a step that never answers, at its deadline (a network drive that is away)', async () => {
    const never = new Promise<never>(() => undefined)
    const p = await problemOf(new Deadline('/mnt/away', 50).run(() => never))
    expect(p.message).toBe('The folder did not answer within 50 ms (a network drive that is away, or a special folder): /mnt/away')
  })

  it('estimates the output from the input bytes and the files per photo', () => {
    expect(estimateOutputBytes(1000, 2)).toBe(8000)
    expect(estimateOutputBytes(1000, 0)).toBe(4000)
  })

  it('makeFolder makes what is missing and keeps what exists', async () => {
    const dir = join(root, 'x', 'y')
    await makeFolder(dir)
    await makeFolder(dir)
    expect(statSync(dir).isDirectory()).toBe(true)
  })
})
