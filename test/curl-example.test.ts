/**
 * The API screen's curl example works when pasted: its text, as the screen shows it
 * (`shared/curl-example.ts`), run by bash (and pasted into zsh) with real curl against a real
 * server and model, uploads photo.jpg, follows the job by the id from the answer and saves the
 * cut-out. With the key written in (just made in this window) and with the key typed at the
 * question (any other key); a wrong key shows the API's answer and stops. The preset editor's
 * commands hand the command line and the API a set with `;` and `#` whole.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { curlExample, settingsCommands } from '../src/shared/curl-example'
import { pollUntilSettled, startTestServer, tempDir, type TestServer } from './helpers/engine'
import { sceneJpeg } from './helpers/fixtures'
import { requireTool } from './helpers/require-tool'

const hasCurl = spawnSync('curl', ['--version']).status === 0
let server: TestServer
let dir: string

beforeAll(async () => {
  server = await startTestServer()
  dir = tempDir('clipdesk-curl-')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'photo.jpg'), await sceneJpeg())
})
afterAll(() => server.close())

/**
 * The example run as pasted into bash (or `shell`), in a folder holding photo.jpg; `typed`: what
 * the user types at the question. Asynchronous: the server answering it runs in this process.
 */
function paste(text: string, typed = '', shell = 'bash'): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(shell, ['-c', text], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (out += c.toString()))
    child.on('close', (code) => resolve({ code, out }))
    child.stdin.end(typed)
  })
}

/** The text pasted into an interactive zsh with no start-up files, as a terminal reads a paste; its output. */
function pasteIntoZsh(text: string): Promise<{ out: string; err: string }> {
  return new Promise((resolve) => {
    mkdirSync(join(dir, 'zsh'), { recursive: true })
    const child = spawn('zsh', ['-i'], { cwd: dir, env: { ...process.env, ZDOTDIR: join(dir, 'zsh') }, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.on('close', () => resolve({ out, err }))
    child.stdin.end(`${text}\n`)
  })
}

const hasZsh = spawnSync('zsh', ['--version']).status === 0

it('uploads, follows the job by its id and saves the cut-out, with the key written in or typed', async (ctx) => {
  requireTool(hasCurl, 'CLIPDESK_REQUIRE_CURL', 'SKIPPED: curl is not installed')
  if (!hasCurl) return ctx.skip('curl is not installed')
  const base = server.url('')
  const written = curlExample(base, { name: 'script', prefix: server.key.slice(0, 8), secret: server.key })
  expect(written).not.toMatch(/<job_id>|cdk_…/)
  const run = await paste(written)
  expect(run.code, run.out).toBe(0)
  expect(run.out).toMatch(/job: [0-9a-f-]{36}\n/)
  expect(run.out).toContain('"state":"done"')
  expect(run.out).toContain('saved: photo.cut-out.png')
  const meta = await sharp(join(dir, 'photo.cut-out.png')).metadata()
  expect([meta.format, meta.channels]).toEqual(['png', 4])
  if (hasZsh) {
    // The same text pasted into zsh (a terminal's, no settings of its own) does the same.
    const z = await pasteIntoZsh(written)
    expect(z.err).not.toMatch(/command not found|parse error/)
    expect(z.out).toMatch(/job: [0-9a-f-]{36}\n/)
    expect(z.out).toContain('saved: photo.cut-out.png')
  }

  const asked = curlExample(base, { name: 'script', prefix: server.key.slice(0, 8), secret: null })
  expect(asked).not.toContain(server.key)
  const typed = await paste(asked, `${server.key}\n`)
  expect(typed.code, typed.out).toBe(0)
  expect(typed.out).toContain(`Paste the key "script" (${server.key.slice(0, 8)}…)`)
  expect(typed.out).not.toContain(server.key) // not echoed
  expect(typed.out).toContain('saved: photo.cut-out.png')
})

it('a wrong key shows the API answer and runs nothing else', async (ctx) => {
  if (!hasCurl) return ctx.skip('curl is not installed')
  const run = await paste(curlExample(server.url(''), { name: null, prefix: 'cdk_xxxx', secret: 'cdk_wrong' }))
  expect(run.code).not.toBe(0)
  expect(run.out).toContain('"code":"unauthorized"')
  expect(run.out).not.toContain('job:')
})

it("the preset editor's commands keep every setting of a set holding ; and # when pasted", async (ctx) => {
  if (!hasCurl) return ctx.skip('curl is not installed')
  const set = 'background=#F4F4F4;crop=subject;size=1600x1600;margin=6%'
  const { cli, curl } = settingsCommands(set, server.url(''))
  // The command line: the shell hands `--params` the whole set (bash, and zsh where installed).
  const shells = ['bash', ...(hasZsh ? ['zsh'] : [])]
  for (const shell of shells) {
    const argv = spawnSync(shell, ['-c', cli.replace(/^npx clipdesk /, "printf '%s\\n' ")], { encoding: 'utf8' })
    expect(argv.stdout.trim().split('\n'), shell).toEqual(['process', 'photos', '--out', 'cutouts', '--params', set])
  }
  // The API: curl sends the whole set; the job's file has the size and background it names.
  for (const shell of shells) {
    const run = await paste(`CLIPDESK_KEY='${server.key}'\n${curl}`, '', shell)
    expect(run.code, run.out).toBe(0)
    const jobId = /"job_id":"([0-9a-f-]{36})"/.exec(run.out)?.[1]
    expect(jobId, `${shell}: ${run.out}`).toBeDefined()
    const { body } = await pollUntilSettled(server, jobId!)
    const file = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
    const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true })
    expect([info.width, info.height], shell).toEqual([1600, 1600])
    expect([...data.subarray(0, 3)], shell).toEqual([0xf4, 0xf4, 0xf4])
  }
  // An empty set leaves `--params` out rather than handing an empty one.
  expect(settingsCommands('', 'http://127.0.0.1:7878').cli).toBe('npx clipdesk process photos --out cutouts')
})
