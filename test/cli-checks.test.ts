/**
 * The command line checks first and says what it did: `--help` / `-h` for every command and
 * `--version` answer without opening anything; every option of `clipdesk process` (and `--out`
 * itself) is checked before a photo is read, with one line and exit code 2; the model's
 * loading is said as such; Ctrl-C stops with the counts of done / stopped / not started, and
 * the same command then continues. The built bin, plain Node, real files, the real model.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastSession } from '../src/main/engine/segment/session/last-session'
import { machineCacheDir } from '../src/main/engine/segment/session/machine'
import { Segmenter } from '../src/main/engine/segment/mask/mask'
import { openDatabase } from '../src/main/engine/store/db'
import { COMMANDS } from '../src/main/cli/help'
import { APP_VERSION } from '../src/main/version'
import { CLI, runCli } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { readOnlyFolder } from './helpers/read-only'
import { waitFor } from './helpers/wait'

let root: string
let input: string
beforeAll(async () => {
  root = tempDir('clipdesk-cli-checks-')
  input = join(root, 'in')
  mkdirSync(input)
  writeFileSync(join(input, 'ball.png'), await scenePng())
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Jobs in a data folder's database (none: no photo was handed to the engine). */
function jobsIn(data: string): number {
  if (!existsSync(join(data, 'clipdesk.db'))) return 0
  const db = openDatabase(join(data, 'clipdesk.db'))
  try {
    return Number((db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n)
  } finally {
    db.close()
  }
}

describe('help and version', () => {
  it.each(Object.keys(COMMANDS))('clipdesk %s --help and -h print its usage, options with defaults and an example', (command) => {
    for (const flag of ['--help', '-h']) {
      const r = runCli([command, flag])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`clipdesk ${command}: `)
      expect(r.stdout).toMatch(/\nUsage:\n {2}clipdesk /)
      expect(r.stdout).toContain('\nOptions:\n')
      expect(r.stdout).toMatch(/\nExamples?:\n {2}clipdesk /)
    }
  })

  it('clipdesk process --help names the defaults and the designer words', () => {
    const r = runCli(['process', '--help'])
    expect(r.stdout).toContain("(default: the preset's (a store preset: jpg), else png)")
    expect(r.stdout).toContain('(default: params with --params, else clipping)')
    expect(r.stdout).toContain('with --mode clipping, a key it cannot apply, such as a background or a shadow, is refused')
    expect(r.stdout).toContain('cut-out')
    expect(r.stdout).toContain('Example')
    // Help comes before any check: a missing --out is not complained about.
    expect(r.stderr).toBe('')
  })

  it('clipdesk serve --help names every studio option serve takes, --max-result-mb with its default', () => {
    const r = runCli(['serve', '--help'])
    expect(r.code).toBe(0)
    for (const flag of ['--queue <redis://host:port>', '--no-local-worker', '--worker-listen <host:port>', '--lock-ms <ms>'])
      expect(r.stdout).toContain(flag)
    expect(r.stdout).toMatch(/--max-result-mb <n>.*\(default: 8 × the upload limit \(400\)\)/)
  })

  it('clipdesk --version and clipdesk help answer', () => {
    const v = runCli(['--version'])
    expect(v.code).toBe(0)
    expect(v.stdout.trim()).toBe(`clipdesk ${APP_VERSION}`)
    const h = runCli(['help', 'watch'])
    expect(h.code).toBe(0)
    expect(h.stdout).toContain('clipdesk watch: ')
    const all = runCli(['help'])
    for (const name of Object.keys(COMMANDS)) expect(all.stdout).toContain(`  ${name} `)
  })

  it('an unknown option is one short line and exit 2', () => {
    const r = runCli(['process', input, '--out', join(root, 'o'), '--colour', 'red'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe("clipdesk: Unknown option '--colour' (--help lists the options)")
  })

  it('a misspelt option gets the nearest one as a suggestion', () => {
    const r = runCli(['process', input, '--out', join(root, 'o'), '--fromat', 'png'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe("clipdesk: Unknown option '--fromat'; did you mean --format? (--help lists the options)")
  })

  it('a misspelt command gets the nearest one as a suggestion, then the list of commands', () => {
    for (const args of [
      ['proces', input, '--out', join(root, 'o')],
      ['help', 'prsets']
    ]) {
      const r = runCli(args)
      expect(r.code).toBe(2)
      const [first, blank, usage] = r.stderr.split('\n')
      expect([first, blank, usage]).toEqual([
        `clipdesk: unknown command "${args[0] === 'help' ? 'prsets' : 'proces'}"; did you mean "${args[0] === 'help' ? 'presets' : 'process'}"?`,
        '',
        'Usage: clipdesk <command> [options]'
      ])
      expect(existsSync(join(root, 'o'))).toBe(false)
    }
    // A word near no command gets the list alone.
    expect(runCli(['frobnicate']).stderr.split('\n')[0]).toBe('clipdesk: unknown command "frobnicate"')
  })
})

describe('clipdesk process checks every option before reading any photo', () => {
  it.each([
    ['--format gif', ['--format', 'gif'], 'clipdesk: --format: expected one of png, jpg, jpeg, psd, tiff, webp; got "gif"'],
    ['--mode bogus', ['--mode', 'bogus'], 'clipdesk: --mode: expected one of clipping, background, params; got "bogus"'],
    [
      '--mode params without --params',
      ['--mode', 'params'],
      'clipdesk: --mode params needs --params <preset or settings>, e.g. --params ecommerce-white'
    ],
    [
      'a bad --params value',
      ['--params', 'background=whte'],
      'clipdesk: --params: background: expected transparent, a colour name (white, black, grey, beige…), #RGB, #RGBA, #RRGGBB, #RRGGBBAA, blur or blur:<px> (1–250), got "whte"'
    ],
    [
      'an unknown preset',
      ['--mode', 'params', '--params', 'no-such-preset'],
      'clipdesk: --params: preset: no preset named "no-such-preset"'
    ],
    [
      'a misspelt preset',
      ['--mode', 'params', '--params', 'ecomerce-white'],
      'clipdesk: --params: preset: no preset named "ecomerce-white"; did you mean "ecommerce-white"?'
    ],
    [
      'a bad --template',
      ['--template', '{nom}.{ext}'],
      'clipdesk: --template: unknown token {nom}; use {name} {ext} {variation} {date} {preset} {n} (or {n:3} for 001, 002…)'
    ],
    ['a --out under a file', ['--out', '<file>/out'], 'clipdesk: --out: <file> is a file, not a folder']
  ])('%s: one line, exit 2, no job, no output folder', (_name, extra, line) => {
    const data = join(root, `data-${Math.random().toString(36).slice(2)}`)
    const out = join(root, `out-${Math.random().toString(36).slice(2)}`)
    const file = join(input, 'ball.png')
    const args = extra.map((a) => a.replace('<file>', file))
    const r = runCli(['process', input, ...(args.includes('--out') ? [] : ['--out', out]), ...args, '--data-dir', data])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toEqual([line.replace('<file>', file)])
    expect(r.stdout).not.toContain('Loading the model')
    expect(jobsIn(data)).toBe(0)
    expect(existsSync(out)).toBe(false)
  })

  it('a read-only --out is said in plain words before any photo is read', (ctx) => {
    const ro = readOnlyFolder()
    if (!ro) return ctx.skip('no folder refuses writes on this machine')
    const data = join(root, 'data-ro')
    const r = runCli(['process', input, '--out', ro, '--data-dir', data])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe(`clipdesk: --out: The folder is read-only: ${ro}`)
    expect(r.stderr).not.toMatch(/EROFS|EACCES|\.part/)
    expect(jobsIn(data)).toBe(0)
  })
})

describe('clipdesk process: the model loading, Ctrl-C, and the same command again', () => {
  it('says the model is loading, stops on SIGINT with what was done and not started, and continues when run again', async () => {
    const photos = join(root, 'shoot')
    mkdirSync(photos)
    const png = await scenePng()
    // Distinct photos (the mask cache would make repeats instant): each a different size.
    const names: string[] = []
    for (let i = 0; i < 8; i++) {
      const name = `photo-${i}.png`
      writeFileSync(
        join(photos, name),
        await sharp(png)
          .resize(240 + 16 * i)
          .png()
          .toBuffer()
      )
      names.push(name)
    }
    const out = join(root, 'shoot-out')
    const data = join(root, 'data-sigint')
    const child = spawn(process.execPath, [CLI, 'process', photos, '--out', out, '--data-dir', data], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    await waitFor('the first photo written', () => names.some((n) => existsSync(join(out, n))), 240_000)
    child.kill('SIGINT')
    expect(await exited, stderr).toBe(1)

    // The model's loading is said as such, before the line that says it is ready.
    expect(stdout.indexOf('Loading the model…')).toBeGreaterThanOrEqual(0)
    expect(stdout.indexOf('Loading the model…')).toBeLessThan(stdout.indexOf(' ready'))
    expect(stdout).not.toMatch(/0% \| 0s left/)
    expect(stdout).toContain('Stopped. Run the same command to continue.')
    const line = stdout.split('\n').find((l) => l.startsWith('Stopped: '))!
    const m =
      /^Stopped: (\d+) done(?:, (\d+) stopped while running)?, (\d+) not started\. (\d+) images? in [\d.]+ s \([\d.]+ s per image\); 0 skipped/.exec(
        line
      )
    expect(m, line).not.toBeNull()
    const [done, cut, notStarted, ran] = [Number(m![1]), Number(m![2] ?? 0), Number(m![3]), Number(m![4])]
    expect(done).toBeGreaterThanOrEqual(1)
    expect(notStarted).toBeGreaterThanOrEqual(1)
    expect(done + cut + notStarted).toBe(8)
    expect(ran).toBe(done) // the rate is over what ran, not over all 8
    expect(stderr).not.toContain('cancelled') // photos stopped mid-way are not failures
    const report = JSON.parse(readFileSync(join(out, 'clipdesk-report.json'), 'utf8'))
    expect(report.outcome).toBe(line.slice(0, line.indexOf('.')))
    expect(report.counts).toMatchObject({ done, failed: 0, stopped: cut, not_started: notStarted })
    expect(report.failed).toEqual([])

    const again = runCli(['process', photos, '--out', out, '--data-dir', data])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(`${done} of 8 images already done with these settings: skipped (--overwrite to redo them)`)
    const title = 'Done: all 8 files' // the run as a whole, both parts
    expect(again.stdout).toMatch(
      new RegExp(
        `${title}\\. ${8 - done} images? in [\\d.]+ s \\([\\d.]+ s per image\\); ${done} skipped \\(already done\\); ${8 - done} files? written to `
      )
    )
    for (const n of names) expect(existsSync(join(out, n))).toBe(true)
  })

  it("a command refused at once exits with its code while the last run's session is still being built ahead", async () => {
    // The built-in model's session from the machine's optimised copy, remembered as the last
    // one: every `clipdesk process` now starts building it as it loads (models/last-session.ts).
    await (await Segmenter.create({ variant: 'medium' })).close()
    expect(lastSession(machineCacheDir())).not.toBeNull()
    for (let i = 0; i < 3; i++) {
      const r = runCli(['process', join(root, 'no-such-folder'), '--out', join(root, 'gone-out'), '--data-dir', join(root, 'data-gone')])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain('no such file or folder')
      // Ending the process under ONNX Runtime's native build aborted it (code 134) before the
      // worker kept the process up until the build settled.
      expect(r.stderr).not.toMatch(/terminate called|Napi::Error|Aborted/)
    }
  })
})
