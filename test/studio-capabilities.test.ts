/**
 * Studio workers on capabilities, not on trust: `clipdesk serve --queue` (no local worker) on a
 * real Redis, its worker endpoints driven by hand with fetch and raw sockets, as an attacker
 * holding a worker key would. Each test is a finding of the hostile review that the
 * coordinator used to accept: results, failures and progress for jobs the key never claimed,
 * a second key taking over a held job, result bodies buffered whole, results of any type and
 * any variation, unbounded worker names, and a queue re-added to Redis every second.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../src/main/engine/store/db'
import type { ServeProcess } from './helpers/cli'
import { multipart, tempDir } from './helpers/engine'
import { junkBodyPng, tinyPng } from './helpers/fixtures'
import { MAX_REFUSED_RESULTS } from '../src/main/studio/runs'
import { json } from './helpers/http'
import {
  HandWorker,
  REDIS_SERVER,
  createKey,
  rawPost,
  redisCommandCount,
  rssBytes,
  startCoordinator,
  startRedis,
  waitFor,
  type RedisProcess,
  stopStudio
} from './helpers/studio'

const MAX_RESULT_MB = 32
const MB = 1024 * 1024

describe.skipIf(!REDIS_SERVER)('studio workers hold capabilities, not trust', () => {
  const data = tempDir()
  let redis: RedisProcess
  let serve: ServeProcess
  let client: string
  let owner: string
  let honest: HandWorker
  let attacker: HandWorker
  let db: Db
  const base = (): string => `http://127.0.0.1:${serve.port}`

  beforeAll(async () => {
    redis = await startRedis()
    owner = createKey(data, ['--admin', '--credits', 'unlimited'])
    client = createKey(data, ['--credits', '5000'])
    honest = new HandWorker(base, createKey(data, ['--worker', '--name', 'honest']), 'honest-1')
    attacker = new HandWorker(base, createKey(data, ['--worker', '--name', 'attacker']), 'attacker-1')
    serve = await startCoordinator(data, redis.url, ['--max-result-mb', String(MAX_RESULT_MB)])
    db = openDatabase(join(data, 'clipdesk.db'))
    await waitFor(
      'the queue to answer',
      async () =>
        (await json(await fetch(`${base()}/api/v1/studio/workers`, { headers: { 'X-API-Key': owner } }))).queue_available === true,
      30_000
    )
  })
  afterAll(() => stopStudio({ db, serve, redis, data }))

  const newJob = async (fields: Record<string, string> = {}): Promise<string> => {
    const res = await fetch(`${base()}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': client },
      body: multipart(fields, { bytes: await tinyPng(), type: 'image/png' })
    })
    expect(res.status).toBe(202)
    return (await json(res)).job_id
  }
  const status = async (id: string): Promise<Record<string, any>> =>
    json(await fetch(`${base()}/api/v1/status?job_id=${id}`, { headers: { 'X-API-Key': client } }))
  const refused = async (res: Promise<Response> | Response, code: number, errorCode: string): Promise<Record<string, any>> => {
    const r = await res
    const body = await json(r)
    expect(r.status, JSON.stringify(body)).toBe(code)
    expect(body.error.code).toBe(errorCode)
    return body
  }
  const resultFiles = (id: string): string[] => {
    try {
      return readdirSync(join(data, 'results', id)).sort()
    } catch {
      return []
    }
  }
  const ledger = (id: string): string[] =>
    (db.prepare('SELECT reason FROM credit_ledger WHERE job_id = ? ORDER BY id').all(id) as { reason: string }[]).map((r) => r.reason)
  const png = (colour = '#ff000080', size = 8): Promise<Buffer> =>
    sharp({ create: { width: size, height: size, channels: 4, background: colour } })
      .png()
      .toBuffer()
  const meta = { warnings: {}, ignored: [], device: 'cpu', uncertainty: 0.1 }
  /** The honest worker's whole run of a claimed job. */
  const finish = async (w: HandWorker, id: string, token: string, bytes: Buffer): Promise<void> => {
    expect((await w.input(id, token)).status).toBe(200)
    expect((await w.progress(id, 'encoding', token)).status).toBe(200)
    expect(await json(await w.result(id, token, { meta, files: [{ name: 'clipping.png', bytes }] }))).toEqual({ stored: true })
  }

  it('refuses a result for a job the key does not hold (403 claim_invalid), and the job then runs normally', async () => {
    const id = await newJob()
    const page = {
      meta: { ...meta, warnings: { clipping: ['made up'] } },
      files: [{ name: 'clipping.png', bytes: await png('#000000ff') }]
    }
    // No claim at all: this used to end the job `done` with the attacker's files.
    await refused(attacker.result(id, undefined, page), 403, 'claim_invalid')
    // A token of the right shape, made up.
    await refused(attacker.result(id, `1.${'A'.repeat(43)}`, page), 403, 'claim_invalid')
    expect((await status(id)).status).toBe('queued')
    expect(resultFiles(id)).toEqual([])
    // The honest worker's token, replayed with another worker key: bound to the key, refused.
    const claim = await honest.claimed(id)
    await refused(attacker.result(id, claim.token, page), 403, 'claim_invalid')
    await refused(attacker.input(id, claim.token), 403, 'claim_invalid')
    const mine = await png('#00ff0080')
    await finish(honest, id, claim.token, mine)
    const st = await status(id)
    expect(st).toMatchObject({ status: 'done', model: 'medium', device: 'cpu' })
    expect(st.warnings).toBeUndefined()
    expect(Buffer.from(await (await fetch(st.final_url)).arrayBuffer()).equals(mine)).toBe(true)
    expect(resultFiles(id)).toEqual(['clipping.png'])
    expect(ledger(id)).toEqual(['charge'])
  })

  it('refuses fail and progress for a job the key does not hold; the holder ends it, its text cleaned', async () => {
    const id = await newJob()
    await refused(attacker.fail(id, 'pipeline_error', 'forged'), 403, 'claim_invalid')
    await refused(attacker.progress(id, 'encoding'), 403, 'claim_invalid')
    expect((await status(id)).status).toBe('queued')
    const claim = await honest.claimed(id)
    await refused(attacker.fail(id, 'pipeline_error', 'forged', claim.token), 403, 'claim_invalid')
    await refused(attacker.progress(id, 'encoding', claim.token), 403, 'claim_invalid')
    expect((await status(id)).status).toBe('segmenting')
    // The holder's own failure report: escape sequences, a forged line and a bidi override are not kept.
    expect(await json(await honest.fail(id, 'pipeline_error', '\u001b[2J\u001b[Hdecoder\nfake: line \u202etxt.exe', claim.token))).toEqual({
      failed: true
    })
    const st = await status(id)
    expect(st.error).toMatchObject({ code: 'job_failed', reason: 'pipeline_error' })
    expect(st.error.message).not.toMatch(/[\u0000-\u001f\u202e]/)
    expect(st.error.message).toContain('decoder fake: line txt.exe')
    expect(ledger(id)).toEqual(['charge', 'refund'])
    // The claim ended with the job.
    await refused(honest.progress(id, 'encoding', claim.token), 409, 'claim_ended')
    await refused(honest.fail(id, 'pipeline_error', 'again', claim.token), 409, 'claim_ended')
    await refused(honest.input(id, claim.token), 409, 'claim_ended')
  })

  it('refuses a second key re-claiming a held job (409 job_held) until its lease lapses; the old claim then ends', async () => {
    const id = await newJob()
    const first = await honest.claimed(id)
    expect(first.lease_ms).toBe(3000)
    const again = await attacker.claim(id)
    await refused(again, 409, 'job_held')
    const wait = Number(again.headers.get('retry-after'))
    expect(wait).toBeGreaterThanOrEqual(1)
    expect(wait).toBeLessThanOrEqual(3)
    // The same key may not take it twice either.
    await refused(honest.claim(id), 409, 'job_held')
    expect(await json(await honest.renew(id, first.token))).toEqual({ ok: true, lease_ms: 3000 })
    // The first holder goes silent (as a dead worker does): once its lease lapses, the job may be claimed again.
    let second: { job: { attempt: number; token: string } } | null = null
    await waitFor(
      'the lease to lapse',
      async () => {
        const res = await attacker.claim(id)
        if (res.status !== 200) return false
        second = await json(res)
        return true
      },
      30_000
    )
    expect(second!.job.attempt).toBe(2)
    await refused(honest.input(id, first.token), 409, 'claim_ended')
    await refused(honest.progress(id, 'encoding', first.token), 409, 'claim_ended')
    await refused(honest.result(id, first.token, { meta, files: [{ name: 'clipping.png', bytes: await png() }] }), 409, 'claim_ended')
    const bytes = await png('#0000ff80')
    await finish(attacker, id, second!.job.token, bytes)
    const st = await status(id)
    expect(st.status).toBe('done')
    expect(Buffer.from(await (await fetch(st.final_url)).arrayBuffer()).equals(bytes)).toBe(true)
  })

  it('refuses a result with the wrong format, variation or bytes with 422, keeps nothing of it, then takes a right one', async () => {
    let id = await newJob()
    let claim = await honest.claimed(id)
    const send = (files: { name: string; bytes: Buffer }[], m: unknown = meta): Promise<Response> =>
      honest.result(id, claim.token, { meta: m, files })
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
      .jpeg()
      .toBuffer()
    const ok = await png('#00ff0080')
    const header1x1 = await png('#00000000', 1)
    const cases: Array<[string, () => Promise<Response>, RegExp]> = [
      ['JPEG bytes as clipping.png', () => send([{ name: 'clipping.png', bytes: jpeg }]), /expected png/],
      [
        'HTML as clipping.png',
        () => send([{ name: 'clipping.png', bytes: Buffer.from('<html><script>alert(1)</script></html>') }]),
        /not an image/
      ],
      ['another format', () => send([{ name: 'clipping.jpg', bytes: jpeg }]), /not one of clipping\.png/],
      ['a variation not asked for', () => send([{ name: 'mask.png', bytes: ok }]), /not one of clipping\.png/],
      [
        'more parts than outputs',
        () =>
          send([
            { name: 'clipping.png', bytes: ok },
            { name: 'clipping.png', bytes: ok }
          ]),
        /too many/
      ],
      ['a script in an .hta part', () => send([{ name: 'clipping.hta', bytes: Buffer.from('<script>x</script>') }]), /not one of/],
      ["a 1×1 PNG for the job's 8×8 input", () => send([{ name: 'clipping.png', bytes: header1x1 }]), /1×1, expected 8×8/],
      ['a 1×1 PNG of 17 MB', () => send([{ name: 'clipping.png', bytes: Buffer.concat([header1x1, Buffer.alloc(17 * MB)]) }]), /at most/],
      ['no meta', () => honest.result(id, claim.token, { files: [{ name: 'clipping.png', bytes: ok }] }), /missing/],
      [
        '21 warnings',
        () => send([{ name: 'clipping.png', bytes: ok }], { ...meta, warnings: { clipping: Array.from({ length: 21 }, () => 'w') } }),
        /bad list/
      ],
      [
        'warnings for a variation not asked for',
        () => send([{ name: 'clipping.png', bytes: ok }], { ...meta, warnings: { compose: ['x'] } }),
        /not one of clipping/
      ],
      [
        'the variation both returned and ignored',
        () => send([{ name: 'clipping.png', bytes: ok }], { ...meta, ignored: ['clipping'] }),
        /returned and ignored/
      ],
      ['the variation missing', () => send([], meta), /missing/]
    ]
    for (const [i, [what, call, issue]] of cases.entries()) {
      // A job whose results are refused MAX_REFUSED_RESULTS times is given up: a fresh one every few cases.
      if (i > 0 && i % (MAX_REFUSED_RESULTS - 1) === 0) {
        id = await newJob()
        claim = await honest.claimed(id)
      }
      const body = await refused(call(), 422, 'validation_failed')
      expect(JSON.stringify(body.error.details), what).toMatch(issue)
      expect(resultFiles(id), what).toEqual([])
    }
    expect((await status(id)).status).toBe('segmenting')
    // Warnings are kept bounded and cleaned of control characters.
    const stored = await send([{ name: 'clipping.png', bytes: ok }], {
      ...meta,
      warnings: { clipping: ['\u001b[31mred\u001b[0m\nsecond line'] }
    })
    expect(await json(stored)).toEqual({ stored: true })
    const st = await status(id)
    expect(st.status).toBe('done')
    expect(st.warnings).toEqual({ clipping: ['[31mred [0m second line'] })
    expect(resultFiles(id)).toEqual(['clipping.png'])
  })

  it('refuses a result whose header is right and whose pixels are junk (422, decoded in the sandbox); the job stays claimable', async () => {
    const id = await newJob()
    const claim = await honest.claimed(id)
    const junk = junkBodyPng(8, 8)
    const body = await refused(
      honest.result(id, claim.token, { meta, files: [{ name: 'clipping.png', bytes: junk }] }),
      422,
      'validation_failed'
    )
    expect(body.error.details[0].field).toBe('clipping.png')
    expect(body.error.details[0].issue).toMatch(/^the decoder says: /)
    expect(resultFiles(id)).toEqual([])
    expect((await status(id)).status).toBe('segmenting')
    expect(ledger(id)).toEqual(['charge'])
    // Still the worker's to finish: a right result is taken.
    await finish(honest, id, claim.token, await png())
    expect((await status(id)).status).toBe('done')
    expect(ledger(id)).toEqual(['charge'])
  })

  it(`gives up a job whose results are refused ${MAX_REFUSED_RESULTS} times: failed with the reason, refunded, nothing kept`, async () => {
    const id = await newJob()
    const claim = await honest.claimed(id)
    const send = (): Promise<Response> =>
      honest.result(id, claim.token, { meta, files: [{ name: 'clipping.png', bytes: junkBodyPng(8, 8) }] })
    for (let i = 1; i < MAX_REFUSED_RESULTS; i++) {
      await refused(send(), 422, 'validation_failed')
      expect((await status(id)).status, `after ${i} refusals`).toBe('segmenting')
    }
    const last = await refused(send(), 422, 'validation_failed')
    expect(last.error.details.at(-1)).toEqual({ field: 'job', issue: 'given up: failed and refunded' })
    const st = await status(id)
    expect(st.status).toBe('failed')
    expect(st.error.reason).toBe('pipeline_error')
    expect(st.error.message).toContain(`refused ${MAX_REFUSED_RESULTS} times`)
    expect(ledger(id)).toEqual(['charge', 'refund'])
    expect(resultFiles(id)).toEqual([])
    // Its claim has ended with it.
    await refused(send(), 409, 'claim_ended')
  })

  it('answers an oversized result 413 without reading it into memory, and the job still takes its result', async () => {
    const id = await newJob()
    const claim = await honest.claimed(id)
    const pid = serve.child.pid!
    const before = rssBytes(pid)
    const boundary = 'clipdeskboundary'
    const headers = { ...honest.headers(claim.token, false), 'Content-Type': `multipart/form-data; boundary=${boundary}` }
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="clipping.png"; filename="clipping.png"\r\nContent-Type: image/png\r\n\r\n`
    )
    const url = `${base()}/api/v1/studio/result/${id}`
    // A declared length over the limit: answered before the body is read.
    const declared = await rawPost(url, headers, { total: 0, declared: 4 * MAX_RESULT_MB * MB, hold: true }).answer
    expect(declared.status).toBe(413)
    expect(JSON.parse(declared.body).error.code).toBe('payload_too_large')
    // A chunked body that runs past the limit: cut off as it passes it (what it sends on is dropped, unread).
    const chunked = await rawPost(url, headers, { total: MAX_RESULT_MB * MB + 4 * MB, head }).answer
    expect(chunked.status).toBe(413)
    expect(JSON.parse(chunked.body).error.code).toBe('payload_too_large')
    // The bytes went to disk, not to memory (the coordinator's RSS is measured in `npm run bench:studio -- --hostile`).
    expect(rssBytes(pid) - before).toBeLessThan(MAX_RESULT_MB * MB)
    await waitFor('the cut-off upload to be removed', () => resultFiles(id).length === 0, 10_000)
    await finish(honest, id, claim.token, await png())
    expect((await status(id)).status).toBe('done')
  })

  it('answers 503 with Retry-After while results in flight fill the budget, and takes them again after', async () => {
    const holders = []
    const boundary = 'clipdeskboundary'
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="clipping.png"; filename="clipping.png"\r\n\r\n`)
    // Two uploads declaring the largest body hold the whole budget (twice the body limit) while
    // they trickle: one of each worker key, as one key may hold only one result's worth of it.
    for (const worker of [honest, attacker]) {
      const id = await newJob()
      const claim = await worker.claimed(id)
      const headers = { ...worker.headers(claim.token, false), 'Content-Type': `multipart/form-data; boundary=${boundary}` }
      const post = rawPost(`${base()}/api/v1/studio/result/${id}`, headers, { total: 1024, declared: MAX_RESULT_MB * MB, head, hold: true })
      await post.opened
      holders.push(post)
      // Held once the coordinator counts it: a second upload of the same job then waits (Retry-After: 1).
      // (The probe's body is empty: were it read, it would be refused, and nothing stored.)
      await waitFor(
        'the held upload to be counted',
        async () => {
          const probe = await rawPost(`${base()}/api/v1/studio/result/${id}`, headers, { total: 0, declared: 0 }).answer
          return probe.status === 503 && JSON.parse(probe.body).error.message.includes('being stored now')
        },
        30_000
      )
    }
    const id = await newJob()
    const claim = await honest.claimed(id)
    const headers = { ...honest.headers(claim.token, false), 'Content-Type': `multipart/form-data; boundary=${boundary}` }
    const busy = await rawPost(`${base()}/api/v1/studio/result/${id}`, headers, { total: 0, declared: 4096, hold: true }).answer
    expect(busy.status).toBe(503)
    expect(busy.headers['retry-after']).toBe('5')
    expect(JSON.parse(busy.body).error.code).toBe('unavailable')
    expect(JSON.parse(busy.body).error.message).toContain('too many results at once')
    for (const h of holders) h.abort()
    await waitFor(
      'the budget to be given back',
      async () => {
        // While the budget is still taken the coordinator answers 503 before reading the body and
        // may close the connection under a request still sending it (EPIPE): not yet, either way.
        const res = await honest.result(id, claim.token, { meta, files: [{ name: 'clipping.png', bytes: await png() }] }).catch(() => null)
        return res?.status === 200
      },
      30_000
    )
    expect((await status(id)).status).toBe('done')
  })

  it("keeps at most 8 names per worker key, cleaned, and leaves other keys' workers listed", async () => {
    expect((await honest.post('hello', {})).status).toBe(200)
    for (let i = 0; i < 20; i++) {
      const fake = new HandWorker(base, attacker.key, `fake-${String(i).padStart(2, '0')}\u009b2J`)
      expect((await fake.post('hello', {})).status).toBe(200)
    }
    const list = await json(await fetch(`${base()}/api/v1/studio/workers`, { headers: { 'X-API-Key': owner } }))
    const names: string[] = list.workers.map((w: { name: string }) => w.name)
    const fakes = names.filter((n) => n.startsWith('fake-'))
    expect(fakes).toHaveLength(8)
    // The most recently seen names stay; none carries a control character.
    expect(fakes).toContain('fake-19 2J')
    expect(names.every((n) => !/[\u0000-\u001f\u007f-\u009f]/.test(n))).toBe(true)
    expect(names).toContain('honest-1')
  })

  it('costs Redis nothing per queued job while nothing changes', async () => {
    // 2,000 queued jobs that no worker takes (URL jobs: nothing is fetched until a claim).
    for (let i = 0; i < 2000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${base()}/api/v1/upload`, {
            method: 'POST',
            headers: { 'X-API-Key': client, 'Content-Type': 'application/json' },
            body: JSON.stringify({ file_url: 'http://198.51.100.1/a.png' })
          }).then((r) => expect(r.status).toBe(202))
        )
      )
    }
    // Let the offers of the new jobs settle, then count what five ticks of the coordinator cost.
    await waitFor(
      'the new jobs to be offered',
      async () => {
        const a = await redisCommandCount(redis.port)
        await new Promise((r) => setTimeout(r, 1500))
        return (await redisCommandCount(redis.port)) - a < 20
      },
      60_000
    )
    const start = await redisCommandCount(redis.port)
    const until = Date.now() + 5000
    await waitFor('five seconds of ticks', () => Date.now() >= until, 10_000)
    const used = (await redisCommandCount(redis.port)) - start
    // Re-adding every job each second (as before) would be about 57,000 commands here.
    expect(used).toBeLessThan(100)
  })
})
