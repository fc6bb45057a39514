/**
 * Every curl example of README.md and docs/api.md works as printed: each code block that runs
 * curl is pasted into bash and into an interactive zsh (no start-up files: `#` is no comment
 * there), with the real curl, against a real `clipdesk serve` on a temp data folder.
 * What the page leaves to the reader (a key, the server's address, remote photos, a job id, a
 * photo in the current folder) is replaced by a local stand-in, and the test prints that list.
 * Each example's answer is checked to do what the page says: the status of each call, and the
 * files its jobs wrote, read back with sharp (sizes, formats, colours, margins). A new example
 * without a check here fails the test.
 *
 * One photo, made in code, stands for every photo named; its mask is cached after the first
 * job, so the examples cost two model runs (the photo, and a look-again box's crop).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { initializeCanvas } from 'ag-psd'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServeProcess, startServe } from './helpers/cli'
import { commentAt, curlExamples, type Example, psdSize, ROOT, subjectBox } from './helpers/doc-blocks'
import { tempDir } from './helpers/engine'
import { smallSubjectPng, smallSubjectScores } from './helpers/fixtures'
import { requireTool } from './helpers/require-tool'

const hasTools = spawnSync('curl', ['--version']).status === 0 && spawnSync('jq', ['--version']).status === 0
/** The job id the pages use as an example. */
const EXAMPLE_JOB = '3f2b8c1e-9a4d-4e7b-8c2f-5d6e7f8a9b0c'

/** What one run of an example gave: its output, and each curl call's HTTP status in order. */
interface Run {
  code: number | null
  stdout: string
  statuses: number[]
  /** The jobs the example made, oldest first, each settled. */
  jobs: Array<Record<string, any>>
}

let serve: ServeProcess
let photoServer: Server
let dir: string
let base: string
let key: string
let photo: Buffer
let photoSize: { width: number; height: number }
let substitutions: Array<[string, string]>
/** The shell variables the pages set in one block and use in others, as a reader's terminal holds them. */
const shellVars: Record<string, string> = {}

async function api(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key } })
  return { status: res.status, body: await res.json() }
}

async function jobIds(): Promise<string[]> {
  return (await api('/api/v1/jobs?limit=100')).body.jobs.map((j: { job_id: string }) => j.job_id)
}

async function settled(jobId: string): Promise<Record<string, any>> {
  for (;;) {
    const { body } = await api(`/api/v1/status?job_id=${jobId}`)
    if (body.state !== 'pending') return body
    await new Promise((r) => setTimeout(r, 200))
  }
}

/**
 * Runs an example as pasted, after the substitutions: into bash, or into an interactive zsh
 * with no start-up files (which, as a terminal's, reads `#` as a command: no comments allowed),
 * fed line by line as a paste is. curl is the real one; each call's status is noted on stderr.
 */
async function run(example: Example, shell: 'bash' | 'zsh'): Promise<Run & { stderr: string }> {
  let text = example.text
  for (const [from, to] of substitutions) text = text.split(from).join(to)
  const before = new Set(await jobIds())
  // `command curl` is the real binary; `-w '%{stderr}…'` notes each call's status without touching what the example reads.
  const prelude = `curl() { command curl -w '%{stderr}@@status %{http_code}\\n' "$@"; }\n`
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const env = { ...process.env, ...shellVars, ZDOTDIR: join(dir, 'zsh') }
    const child =
      shell === 'bash'
        ? spawn('bash', ['-c', prelude + text], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn('zsh', ['-i'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    if (shell === 'zsh') child.stdin!.end(`${prelude + text}\n`)
  })
  const statuses = [...result.stderr.matchAll(/@@status (\d+)/g)].map((m) => Number(m[1]))
  const made = (await jobIds()).filter((id) => !before.has(id)).reverse()
  const jobs = []
  for (const id of made) jobs.push(await settled(id))
  return { code: result.code, stdout: result.stdout, stderr: result.stderr, statuses, jobs }
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url)
  expect(res.status, url).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true })
  const at = (y * info.width + x) * info.channels
  return [...data.subarray(at, at + info.channels)]
}

/** Each example's check, found by a piece of its text. */
const CHECKS: Array<{ match: string; check: (r: Run) => Promise<void> }> = [
  {
    // README: upload, then the job's status.
    match: 'api/v1/status?job_id=$JOB"',
    async check(r) {
      expect(r.statuses).toEqual([202, 200])
      expect(r.jobs).toHaveLength(1)
      expect(r.stdout).toContain(`"job_id":"${r.jobs[0]!.job_id}"`)
      const cutout = await download(r.jobs[0]!.final_url)
      expect(await sharp(cutout).metadata()).toMatchObject({ format: 'png', channels: 4, ...photoSize })
    }
  },
  {
    // README: remove.bg's API, size=auto.
    match: '-o no-bg.png http://127.0.0.1:7878/v1.0/removebg',
    async check(r) {
      expect(r.statuses).toEqual([200])
      expect(await sharp(join(dir, 'no-bg.png')).metadata()).toMatchObject({ format: 'png', channels: 4, ...photoSize })
    }
  },
  {
    // api.md §6.5: a look-again box.
    match: "-F 'regions=",
    async check(r) {
      expect(r.statuses).toEqual([202])
      expect(r.jobs.map((j) => j.state)).toEqual(['done'])
      const cutout = await download(r.jobs[0]!.final_url)
      expect(await sharp(cutout).metadata()).toMatchObject({ format: 'png', ...photoSize })
      // The box is round the small subject the model misses on the whole photo: the look again finds it.
      expect(smallSubjectScores(await sharp(cutout).extractChannel(3).raw().toBuffer())).toBeGreaterThanOrEqual(200)
    }
  },
  {
    // api.md §16: upload by URL; its job is the one the polling and download examples follow.
    match: '"output_format": "webp"}',
    async check(r) {
      expect(r.statuses).toEqual([202])
      expect(r.stdout).toMatch(/"status":"queued","mode":"clipping"/)
      const [job] = r.jobs
      expect(job!.state).toBe('done')
      expect(await sharp(await download(job!.final_url)).metadata()).toMatchObject({ format: 'webp', ...photoSize })
      shellVars.JOB = job!.job_id
      shellVars.BODY = JSON.stringify(job)
    }
  },
  {
    // api.md §16: a file part with its type, delivery_mode=final_url.
    match: 'delivery_mode=final_url',
    async check(r) {
      expect(r.statuses).toEqual([202])
      const [job] = r.jobs
      expect(job!.final_urls).toBeUndefined()
      expect(await sharp(await download(job!.final_url)).metadata()).toMatchObject({ format: 'png', channels: 4, ...photoSize })
    }
  },
  {
    // api.md §16: mode=background: a white background, the four variations, final_url the compose.
    match: '-F mode=background',
    async check(r) {
      expect(r.statuses).toEqual([202])
      const [background] = r.jobs
      expect(Object.keys(background!.final_urls).sort()).toEqual(['background', 'clipping', 'compose', 'shadowTop'])
      expect(new URL(background!.final_url).pathname).toMatch(/\/compose\.png$/)
      expect((await pixel(await download(background!.final_url), 0, 0)).slice(0, 3)).toEqual([255, 255, 255])
    }
  },
  {
    // api.md §16: a preset with size and margin overrides, as a layered PSD.
    match: 'size=1600x1600;margin=6%',
    async check(r) {
      expect(r.statuses).toEqual([202])
      const [preset] = r.jobs
      expect(preset!.state).toBe('done')
      const psd = await download(preset!.final_url)
      expect(new URL(preset!.final_url).pathname).toMatch(/\.psd$/)
      expect(psdSize(psd)).toEqual({ width: 1600, height: 1600 })
      // margin=6%: the subject stands on the bottom margin and fills the width between the side
      // margins, 96 px of 1600 each (its layer mask's box; its soft edge a few pixels inside).
      const box = subjectBox(psd)
      for (const side of [box.left, 1600 - box.right, 1600 - box.bottom]) expect(side).toBeGreaterThanOrEqual(86)
      for (const side of [box.left, 1600 - box.right, 1600 - box.bottom]) expect(side).toBeLessThanOrEqual(100)
    }
  },
  {
    // api.md §16: a typed JSON set: compose and mask only, 1200 on the long edge, on #F4F4F4.
    match: '"background": "#F4F4F4"',
    async check(r) {
      expect(r.statuses).toEqual([202])
      const [typed] = r.jobs
      expect(Object.keys(typed!.final_urls).sort()).toEqual(['compose', 'mask'])
      const compose = await download(typed!.final_urls.compose)
      const meta = await sharp(compose).metadata()
      expect(Math.max(meta.width!, meta.height!)).toBe(1200)
      expect((await pixel(compose, 0, 0)).slice(0, 3)).toEqual([0xf4, 0xf4, 0xf4])
    }
  },
  {
    // api.md §16: polling the job of the URL upload.
    match: 'jq -r .state',
    async check(r) {
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({ job_id: shellVars.JOB, state: 'done' })
    }
  },
  {
    // api.md §16: downloading its result.
    match: 'shoe-cutout.webp',
    async check(r) {
      expect(r.code).toBe(0)
      expect(r.statuses).toEqual([200])
      expect(await sharp(join(dir, 'shoe-cutout.webp')).metadata()).toMatchObject({ format: 'webp', ...photoSize })
    }
  },
  {
    // api.md §16: error bodies, each as the page lists them.
    match: "'Host: evil.example:7878'",
    async check(r) {
      expect(r.statuses).toEqual([400, 422, 401, 404, 422, 403])
      expect(r.jobs).toEqual([])
      const said = [...r.stdout.matchAll(/"code":"([a-z_]+)"/g)].map((m) => m[1])
      expect(said).toEqual(['missing_input', 'validation_failed', 'unauthorized', 'job_not_found', 'validation_failed', 'forbidden_host'])
    }
  },
  {
    // api.md §18: remove.bg's API: a file, a URL, a JSON body with a colour, the account.
    match: '/v1.0/account',
    async check(r) {
      expect(r.statuses).toEqual([200, 200, 200, 200])
      expect(await sharp(join(dir, 'no-bg.png')).metadata()).toMatchObject({ format: 'png', channels: 4, ...photoSize })
      const answers = r.stdout.trim().split(/\n?(?=\{"data")/)
      expect(answers).toHaveLength(2)
      const coloured = Buffer.from(JSON.parse(answers[0]!).data.result_b64, 'base64')
      // No `size` given: remove.bg's default, `preview`, caps the answer at 0.25 MP, the photo's shape kept.
      const meta = await sharp(coloured).metadata()
      expect(meta.format).toBe('jpeg')
      expect(meta.width! * meta.height!).toBeLessThanOrEqual(250_000)
      expect(meta.width! / meta.height!).toBeCloseTo(photoSize.width / photoSize.height, 1)
      // bg_color 81d4fa behind the subject (JPEG: within a few levels).
      const corner = await pixel(coloured, 0, 0)
      for (const [i, want] of [0x81, 0xd4, 0xfa].entries()) expect(Math.abs(corner[i]! - want)).toBeLessThanOrEqual(4)
      expect(JSON.parse(answers[1]!).data.attributes).toHaveProperty('credits')
    }
  }
]

const EXAMPLES = [...curlExamples('README.md'), ...curlExamples('docs/api.md')]
const hasZsh = spawnSync('zsh', ['--version']).status === 0

beforeAll(async () => {
  if (!hasTools) return
  // ag-psd reads layer masks as image data; no canvas is drawn on.
  initializeCanvas(
    () => {
      throw new Error('no canvas')
    },
    ((w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) })) as never
  )
  dir = tempDir('clipdesk-docs-examples-')
  // The photo of the look-again example's box: a ball and, in the box, a small subject.
  photo = await sharp(await smallSubjectPng())
    .jpeg({ quality: 90 })
    .toBuffer()
  const meta = await sharp(photo).metadata()
  photoSize = { width: meta.width!, height: meta.height! }
  for (const name of ['photo.jpg', 'shoe.jpg', 'portrait.jpg']) writeFileSync(join(dir, name), photo)
  mkdirSync(join(dir, 'zsh')) // zsh's start-up files: none
  // The remote photos of the pages, served from this machine.
  photoServer = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(photo))
  await new Promise<void>((resolve) => photoServer.listen(0, '127.0.0.1', resolve))
  const photos = `http://127.0.0.1:${(photoServer.address() as AddressInfo).port}`
  serve = await startServe(join(dir, 'data'), ['--allow-private-urls'])
  base = `http://127.0.0.1:${serve.port}`
  key = serve.key!
  substitutions = [
    ['http://127.0.0.1:7878', base],
    ['https://example.com/photos/shoe.jpg', `${photos}/photos/shoe.jpg`],
    ['https://example.com/shoe.jpg', `${photos}/shoe.jpg`],
    ['cdk_…', key],
    ['iVBORw0…', photo.toString('base64')],
    [`JOB=${EXAMPLE_JOB}`, 'JOB=$JOB']
  ]
  Object.assign(shellVars, { KEY: key, CLIPDESK_KEY: key, API: `${base}/api/v1` })
  console.log(
    [
      'docs examples: replaced before running',
      ...substitutions.map(([from, to]) => `  ${from} → ${to.length > 80 ? `${to.slice(0, 40)}… (the test photo, base64)` : to}`),
      '  $KEY, $CLIPDESK_KEY → the key `clipdesk serve` printed; $API → the server address + /api/v1',
      '  $JOB, $BODY → the job of the "Upload by URL" example and its status',
      `  photo.jpg, shoe.jpg, portrait.jpg → a ${photoSize.width}×${photoSize.height} photo made in code, in the current folder`
    ].join('\n')
  )
}, 120_000)

afterAll(async () => {
  if (!hasTools) return
  serve?.child.kill('SIGTERM')
  await serve?.exited
  await new Promise((r) => photoServer?.close(r))
})

it('no shell block of README.md and docs/*.md holds a comment: pasted into zsh, `#` is a command', () => {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((p) => p.endsWith('.md'))
  const found: string[] = []
  for (const page of pages) {
    let shell = false
    for (const [n, line] of readFileSync(join(ROOT, page), 'utf8').split('\n').entries()) {
      if (line.startsWith('```')) shell = !shell && ['sh', 'bash', 'shell'].includes(line.slice(3).trim())
      else if (shell && commentAt(line) >= 0) found.push(`${page}:${n + 1}: ${line}`)
    }
  }
  expect(found).toEqual([])
})

describe('documented curl examples', () => {
  it('are found in README.md and docs/api.md, and each has a check', () => {
    expect(EXAMPLES.filter((e) => e.page === 'README.md').length).toBeGreaterThanOrEqual(2)
    expect(EXAMPLES.filter((e) => e.page === 'docs/api.md').length).toBeGreaterThanOrEqual(7)
    for (const e of EXAMPLES) {
      // No comments in a block to paste: zsh, as a terminal runs it, reads `#` as a command.
      expect(e.text, `${e.page}:${e.line}`).not.toMatch(/^\s*#|\s#\s/m)
      const found = CHECKS.filter((c) => e.text.includes(c.match))
      expect(found.length, `${e.page}:${e.line} has ${found.length} checks (want 1):\n${e.text}`).toBe(1)
    }
  })

  it.for(EXAMPLES.map((example) => ({ where: `${example.page}:${example.line}`, example })))(
    '$where works as printed',
    { timeout: 300_000 },
    async ({ example }, ctx) => {
      requireTool(hasTools, 'CLIPDESK_REQUIRE_CURL', 'SKIPPED: curl or jq is not installed')
      if (!hasTools) return ctx.skip()
      requireTool(hasZsh, 'CLIPDESK_REQUIRE_CURL', 'SKIPPED: zsh is not installed')
      for (const shell of hasZsh ? (['bash', 'zsh'] as const) : (['bash'] as const)) {
        const r = await run(example, shell)
        // Nothing of the paste is taken for a command it is not (a comment, to zsh).
        expect(r.stderr, shell).not.toMatch(/command not found|parse error/)
        await CHECKS.find((c) => example.text.includes(c.match))!.check(r)
      }
    }
  )
})
