/**
 * One owner of a data folder, across real processes: `clipdesk serve` (a child) owns the folder;
 * `clipdesk process` beside it (another child) works through it with the preset made through the
 * server's API and writes that preset's files, and the database is sound afterwards; a paused
 * serve holds the folder too, so a second serve on it is refused and leaves the running one's
 * batch untouched; `keys`/`presets` are refused with one line; a run whose server stops midway
 * says so and continues when run again.
 */
import { spawn } from 'node:child_process'
import { get } from 'node:http'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CLI, runCli, startServe, type ServeProcess } from './helpers/cli'
import { withDataFolderDb } from './helpers/data-folder'
import { tempDir } from './helpers/engine'
import { waitFor } from './helpers/wait'

/** The status code of a GET on a new connection (no pooled socket). */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    }).on('error', reject)
  })
}

let root: string
const running: ServeProcess[] = []

/** A coloured disc on a plain background: a subject the model finds. */
async function disc(file: string, color: string): Promise<void> {
  const svg = `<svg width="320" height="240"><circle cx="160" cy="120" r="70" fill="${color}"/></svg>`
  await sharp({ create: { width: 320, height: 240, channels: 3, background: '#e8e8e8' } })
    .composite([{ input: Buffer.from(svg) }])
    .png()
    .toFile(file)
}

async function photos(dir: string, colors: string[]): Promise<void> {
  mkdirSync(dir, { recursive: true })
  for (const [i, c] of colors.entries()) await disc(join(dir, `disc-${i + 1}.png`), c)
}

async function serve(dataDir: string, extra: string[] = []): Promise<ServeProcess> {
  const s = await startServe(dataDir, extra)
  running.push(s)
  return s
}

async function stop(s: ServeProcess): Promise<void> {
  s.child.kill('SIGTERM')
  await s.exited
}

/** An app method over the bridge, with the owner key `serve` printed on its new data folder. */
async function app(s: ServeProcess, method: string, arg: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${s.port}/api/app/${method}`, {
    method: 'POST',
    headers: { 'X-API-Key': s.key!, 'Content-Type': 'application/json' },
    body: JSON.stringify(arg ?? null)
  })
  return { status: res.status, body: await res.json() }
}

function integrity(dataDir: string): string {
  return withDataFolderDb(dataDir, (db) => (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check)
}

beforeAll(async () => {
  root = tempDir('clipdesk-owner-')
  await photos(join(root, 'one'), ['#c03020'])
  await photos(join(root, 'three'), ['#2050c0', '#20a040', '#d0a020'])
})

afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL')
    await s.exited
  }
})

describe('clipdesk process beside clipdesk serve', () => {
  it('works through the server with a preset made through its API; the database passes integrity_check', async () => {
    const dataDir = join(root, 'data-preset')
    const s = await serve(dataDir)
    const note = join(dataDir, 'owner.json')
    expect(statSync(note).mode & 0o777).toBe(0o600)
    const preset = await app(s, 'presetsSave', { name: 'shop-beige', params: 'background=#f0e6d2;size=400x300;margin=10%' })
    expect(preset.status, JSON.stringify(preset.body)).toBe(200)

    const out = join(root, 'out-preset')
    const run = runCli(['process', join(root, 'one'), '--out', out, '--params', 'shop-beige', '--data-dir', dataDir])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.split('\n')[0]).toBe(`Using the Clipdesk server running on this data folder (pid ${s.child.pid})`)
    expect(run.stdout).toContain('Done: 1 file.')
    const meta = await sharp(join(out, 'disc-1.png')).metadata()
    expect([meta.width, meta.height]).toEqual([400, 300])
    // The preset's background, in a corner the margin leaves free.
    const { data } = await sharp(join(out, 'disc-1.png'))
      .removeAlpha()
      .extract({ left: 2, top: 2, width: 1, height: 1 })
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect([...data]).toEqual([240, 230, 210])
    // The command's own resume ledger: run again, nothing is redone.
    const again = runCli(['process', join(root, 'one'), '--out', out, '--params', 'shop-beige', '--data-dir', dataDir])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('1 of 1 images already done with these settings: skipped')

    // No second writer: keys and presets go through the server too (its app methods, the owner token).
    const through = `Using the Clipdesk server running on this data folder (pid ${s.child.pid})`
    const created = runCli(['keys', 'create', '--credits', '3', '--name', 'beside', '--data-dir', dataDir])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr.trim()).toBe(through)
    const key = created.stdout.trim().split('\n').at(-1)!
    const listed = runCli(['keys', 'list', '--data-dir', dataDir])
    expect(listed.stdout).toMatch(/\tcredits: 3\tbeside\n/)
    // On a connection of its own: the commands above held this process past the server's
    // keep-alive time, so a pooled connection may be one the server has closed meanwhile.
    const byKey = await statusOf(`http://127.0.0.1:${s.port}/api/v1/status?job_id=nope`, { 'X-API-Key': key })
    expect(byKey).toBe(422) // the key made through the server is the server's
    expect(runCli(['presets', 'list', '--data-dir', dataDir]).stdout).toContain('shop-beige\tshop-beige\tuser\t')
    const worker = runCli(['keys', 'create', '--worker', '--data-dir', dataDir])
    expect(worker.code, worker.stderr).toBe(0)
    expect(worker.stdout).toContain('worker: may only take work and return results')
    // The server's refusal in one line, as the command's own would be.
    const refused = runCli(['keys', 'credit', 'key_nope', '5', '--data-dir', dataDir])
    expect(refused.code).toBe(2)
    expect(refused.stderr.trim().split('\n')).toEqual([through, 'clipdesk: no key with id "key_nope"'])
    await stop(s)
    expect(existsSync(note)).toBe(false) // removed on a clean exit
    expect(integrity(dataDir)).toBe('ok')
    // The folder free again: keys run as before, on their own.
    expect(runCli(['keys', 'list', '--data-dir', dataDir]).code).toBe(0)
  })

  it('refuses an upload with a wrong owner token and no key (401), as any upload without a key', async () => {
    const dataDir = join(root, 'data-token')
    const s = await serve(dataDir)
    const form = new FormData()
    form.append('file', new Blob([readFileSync(join(root, 'one', 'disc-1.png'))]), 'disc.png')
    const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-Clipdesk-Owner': 'f'.repeat(64) },
      body: form
    })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
    const status = await fetch(`http://127.0.0.1:${s.port}/api/v1/status?job_id=x`, { headers: { 'X-Clipdesk-Owner': 'wrong' } })
    expect(status.status).toBe(401)
  })

  it('says in one line that the server is paused, and does not wait for it; keys still go through it', async () => {
    const dataDir = join(root, 'data-paused')
    const s = await serve(dataDir, ['--paused'])
    const keys = runCli(['keys', 'create', '--data-dir', dataDir])
    expect(keys.code, keys.stderr).toBe(0) // a paused server still writes: keys
    expect(keys.stderr.trim()).toBe(`Using the Clipdesk server running on this data folder (pid ${s.child.pid})`)
    const run = runCli(['process', join(root, 'one'), '--out', join(root, 'out-paused'), '--data-dir', dataDir])
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      `clipdesk: the Clipdesk server running on the data folder ${dataDir} (pid ${s.child.pid}) is paused: it keeps jobs queued and runs none; start it without --paused, or stop it, and run this again`
    ])
  })

  it('stops a run whose server stops midway, and continues it when run again', async () => {
    const dataDir = join(root, 'data-gone')
    mkdirSync(dataDir, { recursive: true })
    // One photo at a time, so that the server is stopped with photos still to do.
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ concurrency: 1 }))
    const first = await serve(dataDir)
    const out = join(root, 'out-gone')
    const ledger = join(out, '.clipdesk-process.jsonl')
    const args = [CLI, 'process', join(root, 'three'), '--out', out, '--data-dir', dataDir]
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const code = new Promise<number | null>((resolve) => child.on('exit', resolve))
    await waitFor('the first photo written', () => existsSync(ledger) && readFileSync(ledger, 'utf8').includes('"done"'))
    first.child.kill('SIGKILL')
    expect(await code, output).toBe(1)
    expect(output).toContain(`The Clipdesk server on this data folder (pid ${first.child.pid}) stopped answering`)
    expect(output).toContain('this run stopped. Run the same command to continue.')
    // The ledger's lines: a photo's plan before its files are written, then its `done` line.
    const doneFirst = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .filter((line) => (JSON.parse(line) as { state?: string }).state === 'done').length
    expect(doneFirst).toBeLessThan(3)

    const second = await serve(dataDir)
    const again = runCli(args.slice(1))
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(`Using the Clipdesk server running on this data folder (pid ${second.child.pid})`)
    expect(again.stdout).toContain(`${doneFirst} of 3 images already done with these settings: skipped`)
    expect(again.stdout).toContain('Done: all 3 files.')
    for (const i of [1, 2, 3]) expect(existsSync(join(out, `disc-${i}.png`))).toBe(true)
  })
})

describe('Ctrl-C in a run through the server', () => {
  it('stops the run and cancels its jobs on the server; every one of them ends', async () => {
    const dataDir = join(root, 'data-stop')
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ concurrency: 1 }))
    const s = await serve(dataDir)
    const out = join(root, 'out-stop')
    const ledger = join(out, '.clipdesk-process.jsonl')
    const child = spawn(process.execPath, [CLI, 'process', join(root, 'three'), '--out', out, '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const code = new Promise<number | null>((resolve) => child.on('exit', resolve))
    await waitFor('the first photo written', () => existsSync(ledger) && readFileSync(ledger, 'utf8').includes('"done"'))
    child.kill('SIGINT')
    expect(await code, output).toBe(1)
    expect(output).toContain('Stopped. Run the same command to continue.')
    const statuses = (): string[] =>
      withDataFolderDb(dataDir, (db) => (db.prepare('SELECT status FROM jobs').all() as Array<{ status: string }>).map((r) => r.status))
    const ended = ['done', 'failed', 'cancelled']
    await waitFor('every job of the run ended', () => statuses().every((st) => ended.includes(st)))
    expect(statuses()).toContain('cancelled')
    expect(s.child.exitCode).toBeNull() // the server runs on
  })
})

describe('keys beside a process that takes no work from commands', () => {
  it('refuses them, and a second run, with one line while a clipdesk process run holds the folder', async () => {
    const dataDir = join(root, 'data-process')
    const child = spawn(process.execPath, [CLI, 'process', join(root, 'one'), '--out', join(root, 'out-process'), '--data-dir', dataDir], {
      stdio: 'ignore'
    })
    const ended = new Promise<number | null>((resolve) => child.on('exit', resolve))
    const info = join(dataDir, 'engine.lock')
    await waitFor('the run holding the folder', () => existsSync(info) && readFileSync(info, 'utf8').includes('"role":"process"'))
    const refused = runCli(['keys', 'list', '--data-dir', dataDir])
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split('\n')).toEqual([
      `clipdesk: another Clipdesk process (pid ${child.pid}, process) owns the data folder ${dataDir}; use the app for this, or stop it and run \`clipdesk keys\` again`
    ])
    // A second run: the first takes no work from commands (it leaves no owner note), so it is refused.
    const second = runCli(['process', join(root, 'one'), '--out', join(root, 'out-process-2'), '--data-dir', dataDir])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`clipdesk: another Clipdesk process (pid ${child.pid}, running since `)
    expect(await ended).toBe(0)
  })
})

describe('a paused serve on a folder in use', () => {
  it('is refused, and the running server’s batch goes on untouched', async () => {
    const dataDir = join(root, 'data-batch')
    const s = await serve(dataDir)
    const created = await app(s, 'batchCreate', {
      request: { mode: 'clipping', output_format: 'png' },
      destination: join(root, 'out-batch')
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.id as string
    expect((await app(s, 'batchAdd', { batch_id: id, files: [{ path: join(root, 'three') }] })).body.added).toBe(3)
    await waitFor('the batch running', async () => (await app(s, 'batchGet', id)).body.started_at !== null)
    const during = (await app(s, 'batchGet', id)).body
    expect(during.finished_at).toBeNull() // still working when the second serve starts

    const refused = await startServe(dataDir, ['--paused']).then(
      () => 'listening',
      (err: Error) => err.message
    )
    expect(refused).toMatch(/^serve exited \(1\) before listening/)
    expect(refused).toContain(`another Clipdesk process (pid ${s.child.pid}, running since `)

    await waitFor('the batch finished', async () => (await app(s, 'batchGet', id)).body.finished_at !== null, 300_000, 200)
    const after = (await app(s, 'batchGet', id)).body
    expect(after.interrupted).toBe(false)
    expect(after.counts).toMatchObject({ total: 3, done: 3, failed: 0, cancelled: 0 })
  })
})
