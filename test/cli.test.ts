/**
 * The `clipdesk` command as a user runs it (the built bin, plain Node, real files).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, startServe } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { sceneJpeg, scenePng, SCENE } from './helpers/fixtures'
import { reviewLevel, TO_CHECK, toCheckText } from '../src/shared/review'

const dirs: string[] = []
function dir(): string {
  const d = tempDir()
  dirs.push(d)
  return d
}
afterAll(async () => {
  const { rmSync } = await import('node:fs')
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('clipdesk keys', () => {
  it('creates, lists, credits and revokes keys; the new key is the last line of stdout', () => {
    const data = dir()
    const created = runCli(['keys', 'create', '--credits', '5', '--data-dir', data])
    expect(created.code).toBe(0)
    const key = created.stdout.trim().split('\n').at(-1)!
    expect(key).toMatch(/^cdk_[A-Za-z0-9_-]{43}$/)
    const id = /(key_[0-9a-f]+)/.exec(created.stdout)![1]!

    let list = runCli(['keys', 'list', '--data-dir', data])
    expect(list.stdout).toContain(`${id}\t${key.slice(0, 8)}…\tactive\tcredits: 5`)
    expect(list.stdout).not.toContain(key)

    expect(runCli(['keys', 'credit', id, '3', '--data-dir', data]).stdout).toContain('credits 8')
    expect(runCli(['keys', 'credit', id, 'unlimited', '--data-dir', data]).stdout).toContain('credits unlimited')
    expect(runCli(['keys', 'revoke', id, '--data-dir', data]).code).toBe(0)
    list = runCli(['keys', 'list', '--data-dir', data])
    expect(list.stdout).toContain('revoked')
  })

  it('uses CLIPDESK_DATA_DIR when --data-dir is absent', () => {
    const data = dir()
    expect(runCli(['keys', 'create'], { CLIPDESK_DATA_DIR: data }).code).toBe(0)
    expect(existsSync(join(data, 'clipdesk.db'))).toBe(true)
  })

  it('rejects bad usage with exit code 2 and a message', () => {
    const bad = runCli(['keys', 'create', '--credits', 'lots', '--data-dir', dir()])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('expected --credits to be a whole number')
    const unknown = runCli(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('unknown command')
  })
})

describe('clipdesk process', () => {
  it('writes one cutout per image of a folder, mirroring sub-folders, and skips non-images', async () => {
    const input = dir()
    const out = dir()
    mkdirSync(join(input, 'shoes'))
    writeFileSync(join(input, 'ball.png'), await scenePng())
    writeFileSync(join(input, 'shoes', 'ball.jpg'), await sceneJpeg())
    writeFileSync(join(input, 'notes.txt'), 'not an image')
    const r = runCli(['process', input, '--out', out, '--data-dir', dir()])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Done: all 2 files\. 2 images in [\d.]+ s/m)
    expect(readdirSync(out).sort()).toEqual(['.clipdesk-process.jsonl', 'ball.png', 'clipdesk-report.json', 'clipdesk-report.txt', 'shoes'])
    expect(readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')).toContain('notes.txt') // listed, not processed
    // Each photo's uncertainty score, and how many are to check (docs/review.md): the ball is clear-cut.
    const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
    expect(report.cutouts.map((c: { input: string }) => c.input).sort()).toEqual([
      join(input, 'ball.png'),
      join(input, 'shoes', 'ball.jpg')
    ])
    for (const c of report.cutouts)
      expect(c).toEqual({
        input: expect.any(String),
        uncertainty: expect.any(Number),
        review: reviewLevel(c.uncertainty),
        to_check: c.uncertainty >= TO_CHECK
      })
    expect(report.counts.to_check).toBe(report.cutouts.filter((c: { to_check: boolean }) => c.to_check).length)
    expect(readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')).toContain(toCheckText(report.counts.to_check))
    expect(readdirSync(join(out, 'shoes'))).toEqual(['ball.png'])
    for (const f of [join(out, 'ball.png'), join(out, 'shoes', 'ball.png')]) {
      const meta = await sharp(f).metadata()
      expect([meta.width, meta.height, meta.channels]).toEqual([SCENE.width, SCENE.height, 4])
    }
  })

  it('exits 1 and names the file when an input is not an image', () => {
    const input = dir()
    const bad = join(input, 'broken.png')
    writeFileSync(bad, 'this is text')
    const out = dir()
    const r = runCli(['process', bad, '--out', out, '--data-dir', dir()])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('broken.png: This file is not an image Clipdesk reads')
    expect(r.stdout).toContain('Failed: the file could not be made.')
    // The report says it in plain words and keeps the engine's own text beside them.
    const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
    expect(report.outcome).toBe('Failed: the file could not be made')
    expect(report.failed).toEqual([
      {
        input: bad,
        reason: expect.stringMatching(/^This file is not an image Clipdesk reads/),
        details: expect.stringContaining('not an image of a supported type')
      }
    ])
  })

  it('refuses a missing --out', () => {
    const r = runCli(['process', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--out')
  })
})

describe('clipdesk serve', () => {
  it('prints the address and a first key on an empty data folder, and stops cleanly on SIGTERM', async () => {
    const data = dir()
    const serve = await startServe(data)
    expect(serve.key).toMatch(/^cdk_/)
    const res = await fetch(`http://127.0.0.1:${serve.port}/api/v1/status?job_id=x`, { headers: { 'X-API-Key': serve.key! } })
    expect(res.status).toBe(422)
    serve.child.kill('SIGTERM')
    expect(await serve.exited).toBe(0)
    // A second start on the same folder creates no new key.
    const again = await startServe(data)
    expect(again.key).toBeNull()
    again.child.kill('SIGINT')
    expect(await again.exited).toBe(0)
  })
})
