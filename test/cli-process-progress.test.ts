/**
 * `clipdesk process` in a terminal (a real pseudo-terminal made by `script`, so that the bar is
 * drawn as a user sees it), stopped with Ctrl-C and run again: the bar says "Loading the model…"
 * first, counts only photos finished (never one stopped mid-way), gives no time left before a
 * photo has finished, and the report of the continued run covers the photos of both parts,
 * their uncertainty scores and "to check" flags included. Real model, real files, the built CLI.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, expect, it } from 'vitest'
import { CLI, runCli } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { requireTool } from './helpers/require-tool'
import { waitFor } from './helpers/wait'

const root = tempDir('clipdesk-progress-')
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Each drawing of the bar in a terminal's output: `[percent, finished, total]`. */
function barDrawings(output: string): Array<[number, number, number]> {
  const drawn: Array<[number, number, number]> = []
  for (const m of output.matchAll(/(\d+)% \| (\d+)\/(\d+) images/g)) drawn.push([Number(m[1]), Number(m[2]), Number(m[3])])
  return drawn
}

/** util-linux's `script` (its options differ elsewhere). */
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ?? false

it('the bar counts finished photos only, and a continued run reports every photo of both parts', async (ctx) => {
  requireTool(hasScript, 'CLIPDESK_REQUIRE_SCRIPT', 'SKIPPED: util-linux script (a terminal for the command) is not installed')
  if (!hasScript) return ctx.skip('util-linux script is not installed')
  const photos = join(root, 'shoot')
  mkdirSync(photos)
  const png = await scenePng()
  const names: string[] = []
  for (let i = 0; i < 6; i++) {
    const name = `photo-${i}.png`
    writeFileSync(
      join(photos, name),
      await sharp(png)
        .resize(256 + 16 * i)
        .png()
        .toBuffer()
    ) // distinct: no mask cache hits
    names.push(name)
  }
  const out = join(root, 'out')
  const data = join(root, 'data')
  const command = [process.execPath, CLI, 'process', photos, '--out', out, '--data-dir', data].map((a) => `'${a}'`).join(' ')
  // `script` gives the command a terminal; a Ctrl-C typed into it reaches the command as SIGINT.
  const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  await waitFor('the first photo written', () => names.some((n) => existsSync(join(out, n))), 240_000)
  child.stdin.write('\x03')
  await exited

  const loading = output.indexOf('Loading the model…')
  const drawings = barDrawings(output)
  expect(loading, output).toBeGreaterThanOrEqual(0)
  expect(drawings.length, output).toBeGreaterThan(0)
  expect(output.indexOf('% | ')).toBeGreaterThan(loading) // no bar while the model loads
  expect(output).not.toMatch(/0s left/)
  expect(output).toContain('estimating the time left')
  const stopped = /Stopped: (\d+) done(?:, (\d+) stopped while running)?, (\d+) not started/.exec(output)
  expect(stopped, output).not.toBeNull()
  const done = Number(stopped![1])
  expect(done).toBeGreaterThanOrEqual(1)
  // The last drawing of the bar is what the user saw at Ctrl-C: the photos finished, no more.
  const [percent, finished, total] = drawings.at(-1)!
  expect([finished, total]).toEqual([done, 6])
  expect(percent).toBe(Math.floor((100 * done) / 6)) // cli-progress rounds down
  const first = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
  expect(first.cutouts).toHaveLength(done)

  // The same command again: the rest is done, and the report covers all six photos.
  const again = runCli(['process', photos, '--out', out, '--data-dir', data])
  expect(again.code, again.stderr).toBe(0)
  const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
  expect(report.counts).toMatchObject({ inputs: 6, skipped: done, done: 6 - done, failed: 0 })
  expect(report.outcome).toBe('Done: all 6 files')
  expect(report.cutouts.map((c: { input: string }) => c.input).sort()).toEqual(names.map((n) => join(photos, n)).sort())
  // The first part's photos keep the scores and flags they were given then.
  for (const c of first.cutouts) expect(report.cutouts).toContainEqual(c)
  expect(report.counts.to_check).toBe(report.cutouts.filter((c: { to_check: boolean }) => c.to_check).length)
  const txt = readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')
  expect(txt).toContain(
    `\n6 photos: ${done} done before (skipped), ${6 - done} done now; ${6 - done === 1 ? '1 file' : `${6 - done} files`} written now\n`
  )
  expect(txt).toContain('\nSettings: Cut-out (transparent) · PNG; one file per photo; default names\n')
  expect(txt).toContain(`\n${report.counts.to_check === 1 ? '1 cutout' : `${report.counts.to_check} cutouts`} to check`)
})
