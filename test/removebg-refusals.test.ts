/**
 * Money follows results, and refusals reach the client, on the remove.bg-compatible endpoint:
 * a job remove.bg answers at no charge (`unknown_foreground`, `invalid_bg_image`) is refunded
 * and its results deleted from every route; the same empty cutout on `/api/v1` stays charged and
 * keeps its result; a 0-credit or bad key sending a 12 MB body with Node's fetch reads its
 * 402/403; a truncated body is answered in remove.bg's error shape; a part named like an Object
 * method is an unknown parameter, not a repeated one. Real engine, real model (two runs of a
 * small flat image), real listener on 127.0.0.1.
 */
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { junkBodyPng } from './helpers/fixtures'
import { json } from './helpers/http'

let server: TestServer
let flat: Buffer

beforeAll(async () => {
  server = await startTestServer()
  flat = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .png()
    .toBuffer()
})
afterAll(async () => {
  await server.close()
})

function form(files: Record<string, Buffer>, fields: Record<string, string> = {}): FormData {
  const f = new FormData()
  for (const [name, bytes] of Object.entries(files)) f.append(name, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), `${name}.png`)
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  return f
}

async function removebg(key: string, body: FormData): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url('/v1.0/removebg'), { method: 'POST', headers: { 'X-Api-Key': key }, body })
  return { status: res.status, body: await json(res) }
}

/** The key's only job, as `/api/v1/jobs` lists it. */
async function onlyJob(key: string): Promise<any> {
  const res = await fetch(server.url('/api/v1/jobs'), { headers: { 'X-Api-Key': key } })
  expect(res.status).toBe(200)
  const { jobs } = await json(res)
  expect(jobs).toHaveLength(1)
  return jobs[0]
}

/** A signed result address the server would have given for this job's file, fetched. */
async function fetchSigned(jobId: string, file: string): Promise<{ status: number; code: string | undefined }> {
  const expires = Math.floor(Date.now() / 1000) + 3600
  const sig = server.engine.signAddress(jobId, file, expires)
  const res = await fetch(server.url(`/api/v1/results/${jobId}/${file}?expires=${expires}&sig=${sig}`))
  const body = res.status === 200 ? undefined : await json(res)
  if (res.status === 200) await res.arrayBuffer()
  return { status: res.status, code: body?.error?.code }
}

/** Every route a result could be reached by says it is gone; the folder is gone too. */
async function expectNoResult(key: string, jobId: string): Promise<void> {
  const status = await fetch(server.url(`/api/v1/status?job_id=${jobId}`), { headers: { 'X-Api-Key': key } })
  const body = await json(status)
  expect(status.status).toBe(500)
  expect(body.error.code).toBe('job_failed')
  expect(body.error.reason).toBe('result_refused')
  expect(body.final_url).toBeNull()
  expect(body.final_urls).toBeUndefined()
  for (const file of ['clipping.png', 'mask.png']) expect(await fetchSigned(jobId, file)).toEqual({ status: 404, code: 'not_found' })
  expect(server.engine.jobResults(jobId)).toEqual([])
  expect(existsSync(server.engine.resultDir(jobId))).toBe(false)
}

describe('a job remove.bg answers at no charge leaves no result', () => {
  it('unknown_foreground: 400, the credit back, the job failed result_refused and its results deleted', async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const r = await removebg(key, form({ image_file: flat }))
    expect(r.status).toBe(400)
    expect(r.body.errors[0].code).toBe('unknown_foreground')
    expect(server.engine.key(info.id)!.credits).toBe(1)
    const job = await onlyJob(key)
    expect(job.status).toBe('failed')
    await expectNoResult(key, job.job_id)
  })

  it('invalid_bg_image (a valid header over a junk body): 400, the credit back, its results deleted', async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const photo = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .composite([{ input: Buffer.from('<svg width="96" height="64"><circle cx="48" cy="32" r="20" fill="#fff"/></svg>') }])
      .png()
      .toBuffer()
    const r = await removebg(key, form({ image_file: photo, bg_image_file: junkBodyPng(64, 48) }))
    expect(r.status).toBe(400)
    expect(r.body.errors[0].code).toBe('invalid_bg_image')
    expect(server.engine.key(info.id)!.credits).toBe(1)
    const job = await onlyJob(key)
    expect(job.status).toBe('failed')
    await expectNoResult(key, job.job_id)
  })
})

describe('/api/v1 keeps charging what it delivers', () => {
  it('a done job whose cutout is empty stays charged and its result can be fetched', async () => {
    const { key, info } = server.engine.createKey({ credits: 1 })
    const up = await fetch(server.url('/api/v1/upload'), { method: 'POST', headers: { 'X-Api-Key': key }, body: form({ file: flat }) })
    expect(up.status).toBe(202)
    const { job_id } = await json(up)
    const settled = await pollUntilSettled(server, job_id, key)
    expect(settled.body.status).toBe('done')
    expect(server.engine.key(info.id)!.credits).toBe(0)
    const res = await fetch(settled.body.final_url as string)
    expect(res.status).toBe(200)
    expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(96)
  })
})

describe('a refusal before the body is read is an answer, not a reset', () => {
  const big = Buffer.alloc(12 * 1024 * 1024, 7)

  it('a 0-credit key with a 12 MB multipart body gets 402 as an answer (Node fetch, no Expect)', async () => {
    const { key } = server.engine.createKey({ credits: 0 })
    const r = await removebg(key, form({ image_file: big }))
    expect(r.status).toBe(402)
    expect(r.body.errors[0].code).toBe('insufficient_credits')
  })

  it('a bad key with a 12 MB multipart body gets 403 as an answer', async () => {
    const r = await removebg('not-a-key', form({ image_file: big }))
    expect(r.status).toBe(403)
    expect(r.body.errors[0].code).toBe('auth_failed')
  })
})

describe('small refusals in their right shape', () => {
  it('a body that ends before its Content-Length is answered 400 in remove.bg’s error shape', async () => {
    const socket = connect({ port: server.http.port, host: '127.0.0.1' })
    const reply = new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (c: Buffer) => {
        text += c.toString('latin1')
      })
      socket.on('error', () => undefined)
      socket.on('close', () => resolve(text))
    })
    await new Promise<void>((r) => socket.once('connect', r))
    socket.write(
      `POST /v1.0/removebg HTTP/1.1\r\nHost: 127.0.0.1:${server.http.port}\r\nX-Api-Key: ${server.key}\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nsize=auto&image_file_b64=AAAA'
    )
    socket.end()
    const text = await reply
    expect(text.slice(0, 12)).toBe('HTTP/1.1 400')
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
    expect(body.errors[0].code).toBe('invalid_request')
    expect(body.error).toBeUndefined()
  })

  it.each(['constructor', 'toString', '__proto__'])('a form part named %s is an unknown parameter, not one sent twice', async (name) => {
    const r = await removebg(server.key, form({ image_file: flat }, { [name]: 'x' }))
    expect(r.status).toBe(400)
    expect(r.body.errors.map((e: { code: string }) => e.code)).toEqual(['unknown_parameter'])
    expect(r.body.errors[0].detail).toContain(name)
  })

  it('a form-urlencoded field named toString is an unknown parameter too', async () => {
    const res = await fetch(server.url('/v1.0/removebg'), {
      method: 'POST',
      headers: { 'X-Api-Key': server.key, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'image_url=http%3A%2F%2F127.0.0.1%2Fa.png&toString=1'
    })
    expect(res.status).toBe(400)
    expect((await json(res)).errors.map((e: { code: string }) => e.code)).toEqual(['unknown_parameter'])
  })
})
