/**
 * A touch-up's Save through the app bridge of `clipdesk serve`, over real sockets, into a
 * destination others can write to: a result replaced by a symbolic link, a FIFO at the output
 * name, and the destination folder swapped for a link are each refused with 409 `conflict`
 * before any byte is written (nothing read through the link, the FIFO never waited on, the
 * other folder untouched). And a Save that takes longer than the server's idle limit (queued
 * behind another file's job) answers with its result, never an empty reply while it applies.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TouchUpTarget } from '../src/shared/touchup'
import { createAppApi, type AppHost } from '../src/main/app-api/app-api'
import { appEvents, batchAppFiles } from '../src/main/app-api/files'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { startHttpServer, type HttpListener } from '../src/main/http/server'
import { address, settled, until } from './helpers/batches'
import { tempDir } from './helpers/engine'
import { waitFor } from './helpers/wait'
import { SCENE, scenePng, smallSubjectPng } from './helpers/fixtures'

/** The server cuts a connection with no traffic for this long. */
const IDLE_MS = 200

let root: string
let engine: Engine
let batches: BatchService
let http: HttpListener
let owner: string
let out: string
let target: TouchUpTarget
let hint: string

beforeAll(async () => {
  root = tempDir('clipdesk-touchup-dest-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  batches = new BatchService(engine)
  batches.start()
  // The host is not used by the touch-up methods: only the engine and the batches are.
  const handlers = createAppApi({ engine, batches, host: {} as AppHost, address })
  http = await startHttpServer(engine, {
    port: 0,
    idleTimeoutMs: IDLE_MS,
    app: { handlers, engine, files: batchAppFiles(batches), events: appEvents({ engine, batches, address }) }
  })
  owner = engine.createKey({ credits: null, name: 'owner', admin: true }).key
  out = join(root, 'out')
  const batch = await batches.create({ request: { mode: 'clipping', output_format: 'png', params: null }, destination: out })
  await batches.add(batch.id, [{ bytes: await scenePng(), rel_path: 'ball.png' }])
  await until(batches, batch.id, settled)
  const item = batches.detail(batch.id, address).items[0]!
  expect(item.status).toBe('done')
  target = { kind: 'batch', batch_id: batch.id, item_id: item.id }
  await waitFor('the batch report', () => existsSync(join(out, 'clipdesk-report.txt')))
  // Strokes that change nothing much: grey is "no stroke".
  hint = (
    await sharp(Buffer.alloc(SCENE.width * SCENE.height, 128), { raw: { width: SCENE.width, height: SCENE.height, channels: 1 } })
      .png()
      .toBuffer()
  ).toString('base64')
})

afterAll(async () => {
  await http.close()
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

interface SaveAnswer {
  error?: { code: string; message: string }
  outputs?: string[]
  previous?: string[]
  touch_ups?: number
}

async function save(): Promise<{ status: number; body: SaveAnswer }> {
  const res = await fetch(`${http.url}/api/app/touchUp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': owner },
    body: JSON.stringify({ target, hint })
  })
  return { status: res.status, body: (await res.json()) as SaveAnswer }
}

const listing = (dir: string): string[] => readdirSync(dir).sort()

describe('touch-up Save into a destination', () => {
  it("refuses a result replaced by a symbolic link: 409 conflict, the link's target not copied in", async () => {
    const ball = join(out, 'ball.png')
    const original = readFileSync(ball)
    const before = listing(out)
    writeFileSync(join(root, 'secret.txt'), "the user's private file")
    unlinkSync(ball)
    symlinkSync(join(root, 'secret.txt'), ball)
    const res = await save()
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual({
      code: 'conflict',
      message: `The touched-up file was not written: ${ball} is a symbolic link, not a regular file; Clipdesk reads and replaces only regular files`
    })
    expect(listing(out)).toEqual(before) // no `ball.prev-1.png`, no temp file
    expect(readFileSync(join(root, 'secret.txt'), 'utf8')).toBe("the user's private file")
    unlinkSync(ball)
    writeFileSync(ball, original)
  })

  it('refuses a FIFO at the output name at once: 409 conflict, the FIFO never opened', async () => {
    const ball = join(out, 'ball.png')
    const original = readFileSync(ball)
    const before = listing(out)
    unlinkSync(ball)
    execFileSync('mkfifo', [ball])
    const res = await save()
    expect(res.status).toBe(409)
    expect(res.body.error?.code).toBe('conflict')
    expect(res.body.error?.message).toBe(
      `The touched-up file was not written: ${ball} is a named pipe (FIFO), not a regular file; Clipdesk reads and replaces only regular files`
    )
    expect(listing(out)).toEqual(before)
    unlinkSync(ball)
    writeFileSync(ball, original)
  })

  it('refuses the destination folder swapped for a link: 409 conflict, the other folder untouched', async () => {
    const other = join(root, 'other')
    mkdirSync(other)
    writeFileSync(join(other, 'ball.png'), 'their picture')
    writeFileSync(join(other, 'clipdesk-report.json'), '{"theirs":true}')
    const moved = join(root, 'moved')
    renameSync(out, moved)
    symlinkSync(other, out)
    try {
      const res = await save()
      expect(res.status).toBe(409)
      expect(res.body.error).toEqual({
        code: 'conflict',
        message: `The touched-up file was not written: ${out} is a symbolic link now (the folder was moved or replaced); nothing is written through links`
      })
      expect(listing(other)).toEqual(['ball.png', 'clipdesk-report.json'])
      expect(readFileSync(join(other, 'ball.png'), 'utf8')).toBe('their picture')
      expect(readFileSync(join(other, 'clipdesk-report.json'), 'utf8')).toBe('{"theirs":true}')
    } finally {
      unlinkSync(out)
      renameSync(moved, out)
    }
  })

  it("answers a Save that outlasts the idle limit with its result (queued behind another file's job)", async () => {
    // The limit is live on this server: a connection that sends nothing is cut.
    await new Promise<void>((resolve, reject) => {
      const idle = createConnection({ host: '127.0.0.1', port: http.port })
      idle.on('error', reject)
      idle.on('close', () => resolve())
    })
    const ahead = await batches.create({
      request: { mode: 'clipping', output_format: 'png', params: null },
      destination: join(root, 'ahead')
    })
    await batches.add(ahead.id, [{ bytes: await smallSubjectPng(), rel_path: 'small.png' }])
    const res = await save()
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ outputs: [join(out, 'ball.png')], previous: [join(out, 'ball.prev-1.png')], touch_ups: 1 })
    expect(existsSync(join(out, 'ball.prev-1.png'))).toBe(true)
    expect(batches.detail((target as TouchUpTarget & { kind: 'batch' }).batch_id, address).items[0]!.touch_ups).toBe(1)
    await until(batches, ahead.id, settled)
  })
})
