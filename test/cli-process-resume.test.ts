/**
 * `clipdesk process` as a user runs it (the built bin, plain Node, real files, real model):
 * outputs are what was asked, a run killed with SIGKILL continues where it stopped, name
 * clashes never overwrite, and failures never stop the run and land in the report.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEMP_SUFFIX } from '../src/main/outputs/place'
import { CLI, runCli } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { sceneJpeg, scenePng } from './helpers/fixtures'
import { waitFor } from './helpers/wait'

let root: string
let data: string
let png: Buffer
let jpeg: Buffer
beforeAll(async () => {
  root = tempDir('clipdesk-process-')
  data = join(root, 'data') // one data folder: later runs reuse the masks of earlier ones
  png = await scenePng()
  jpeg = await sceneJpeg()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Files of a folder tree, '/'-separated, without the run's own bookkeeping. */
function outputs(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => f.split('\\').join('/'))
    .filter((f) => !f.startsWith('.clipdesk-process') && !f.startsWith('clipdesk-report.') && f.includes('.'))
    .sort()
}

describe('clipdesk process: what was asked, resume, clashes, report', () => {
  it('writes the primary only with a preset, every variation with --all-variations', () => {
    const input = join(root, 'in-preset')
    mkdirSync(input)
    writeFileSync(join(input, 'ball.png'), png)
    const one = join(root, 'out-primary')
    let r = runCli(['process', input, '--out', one, '--mode', 'params', '--params', 'ecommerce-white', '--data-dir', data])
    expect(r.code, r.stderr).toBe(0)
    expect(outputs(one)).toEqual(['ball.png'])
    const all = join(root, 'out-all')
    r = runCli(['process', input, '--out', all, '--mode', 'params', '--params', 'ecommerce-white', '--all-variations', '--data-dir', data])
    expect(r.code, r.stderr).toBe(0)
    expect(outputs(all)).toEqual(['ball.background.png', 'ball.cut-out.png', 'ball.on-background.png', 'ball.with-shadow.png'])
  })

  it('numbers clashing names, keeps files it did not write, and follows --template', () => {
    const input = join(root, 'in-clash')
    mkdirSync(input)
    writeFileSync(join(input, 'a.png'), png)
    writeFileSync(join(input, 'a.jpg'), jpeg) // same stem
    writeFileSync(join(input, 'readme.md'), 'not an image')
    writeFileSync(join(input, 'broken.png'), 'not a PNG at all')
    const out = join(root, 'out-clash')
    mkdirSync(out)
    writeFileSync(join(out, 'a.png'), 'the user’s own file')
    const r = runCli(['process', input, '--out', out, '--data-dir', data])
    expect(r.code).toBe(1) // broken.png failed, the others went on
    expect(outputs(out)).toEqual(['a-1.png', 'a-2.png', 'a.png'])
    expect(readFileSync(join(out, 'a.png'), 'utf8')).toBe('the user’s own file')
    const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
    expect(report.counts).toMatchObject({ inputs: 3, done: 2, failed: 1, not_images: 1, files_written: 2 })
    expect(report.failed[0].input).toBe(join(input, 'broken.png'))
    expect(report.not_images).toEqual([join(input, 'readme.md')])
    expect(readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')).toMatch(/broken\.png: .+/)

    const templated = join(root, 'out-template')
    const t = runCli(['process', join(input, 'a.png'), '--out', templated, '--template', '{preset}/{name}-cut.{ext}', '--data-dir', data])
    expect(t.code, t.stderr).toBe(0)
    expect(outputs(templated)).toEqual(['cut-out/a-cut.png'])
    // {n}: each photo's number among the command's inputs (a.jpg, a.png; broken.png failed), zero-padded.
    const numbered = join(root, 'out-numbered')
    const n = runCli(['process', input, '--out', numbered, '--template', 'sku-{n:3}-{name}.{ext}', '--data-dir', data])
    expect(n.code).toBe(1)
    expect(outputs(numbered)).toEqual(['sku-001-a.png', 'sku-002-a.png'])
    const bad = runCli(['process', input, '--out', templated, '--template', '{nope}.{ext}'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--template')
  })

  it('continues a run killed with SIGKILL: one output per photo, the rest skipped', async () => {
    const input = join(root, 'in-kill')
    mkdirSync(input)
    const names = ['p1', 'p2', 'p3', 'p4']
    for (const [i, n] of names.entries()) writeFileSync(join(input, `${n}.${i % 2 ? 'jpg' : 'png'}`), i % 2 ? jpeg : png)
    const out = join(root, 'out-kill')
    // Killed as soon as the first photo is recorded done (how many more got done meanwhile varies).
    const child = spawn(process.execPath, [CLI, 'process', input, '--out', out, '--data-dir', join(root, 'data-kill')], { stdio: 'ignore' })
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
    const ledger = join(out, '.clipdesk-process.jsonl')
    await waitFor(
      'the first photo recorded done',
      () => existsSync(ledger) && readFileSync(ledger, 'utf8').includes('"state":"done"'),
      600_000
    )
    child.kill('SIGKILL')
    await exited
    const doneBefore = new Set(
      readFileSync(ledger, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"state":"done"'))
        .map((l) => JSON.parse(l).input)
    ).size
    expect(doneBefore).toBeGreaterThan(0)

    const again = runCli(['process', input, '--out', out, '--data-dir', join(root, 'data-kill')])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(`${doneBefore} skipped (already done)`)
    expect(outputs(out)).toEqual(names.map((n) => `${n}.png`))
    // No temp file of a write left behind (hidden names, see src/main/outputs/place.ts).
    expect(readdirSync(out).filter((f) => f.endsWith(TEMP_SUFFIX))).toEqual([])

    // A third run skips all; --overwrite redoes all under the same names.
    expect(runCli(['process', input, '--out', out, '--data-dir', join(root, 'data-kill')]).stdout).toContain('4 skipped (already done)')
    const forced = runCli(['process', input, '--out', out, '--overwrite', '--data-dir', join(root, 'data-kill')])
    expect(forced.stdout).toContain('Done: all 4 files.')
    expect(outputs(out)).toEqual(names.map((n) => `${n}.png`))
  })
})
