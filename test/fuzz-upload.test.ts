/**
 * Hostile input against the upload endpoint (fast-check): whatever the body, the answer is a
 * clear 4xx (or 202 for a valid request) with a known error code — never a 500, never a hang.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_STATUS } from '../src/shared/errors'
import { startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ run: false, maxQueuedJobs: 1_000_000 })
})
afterAll(() => server.close())

const CODES = new Set(Object.keys(ERROR_STATUS))

async function post(body: string | Uint8Array, contentType: string): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key, 'Content-Type': contentType },
    body,
    signal: AbortSignal.timeout(10_000)
  })
  return { status: res.status, body: await json(res) }
}

function expectClearAnswer(res: { status: number; body: any }): void {
  if (res.status === 202) {
    expect(res.body.status).toBe('queued')
    return
  }
  expect([400, 413, 422]).toContain(res.status)
  expect(CODES.has(res.body.error.code)).toBe(true)
  expect(ERROR_STATUS[res.body.error.code as keyof typeof ERROR_STATUS]).toBe(res.status)
  expect(typeof res.body.error.message).toBe('string')
}

const field = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string()),
  fc.dictionary(fc.string(), fc.string())
)

describe('upload parser under hostile input', () => {
  it('answers any JSON value with 202/400/422 and a known code (300 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => expectClearAnswer(await post(JSON.stringify(value), 'application/json'))),
      { numRuns: 300 }
    )
  })

  it('answers objects mixing real field names and wrong types clearly (300 cases)', async () => {
    const body = fc.record(
      { file_url: field, mode: field, params: field, delivery_mode: field, output_format: field, file: field },
      { requiredKeys: [] }
    )
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const res = await post(JSON.stringify(value), 'application/json')
        expectClearAnswer(res)
        if ('file' in value) expect(res.status).toBe(400)
      }),
      { numRuns: 300 }
    )
  })

  it('answers arbitrary bytes as JSON or multipart with a clear 4xx (300 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), async (bytes, asMultipart) => {
        const type = asMultipart ? 'multipart/form-data; boundary=XyZ' : 'application/json'
        expectClearAnswer(await post(new Uint8Array(bytes), type))
      }),
      { numRuns: 300 }
    )
  })

  it('answers well-formed multipart with random parts clearly (200 cases)', async () => {
    const part = fc.record({
      name: fc.oneof(fc.constantFrom('file', 'mode', 'params', 'file_url', 'output_format'), fc.string({ minLength: 1, maxLength: 12 })),
      value: fc.string({ maxLength: 64 }),
      asFile: fc.boolean(),
      type: fc.constantFrom('image/png', 'text/plain', 'application/octet-stream', 'image/svg+xml')
    })
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 6 }), async (parts) => {
        const form = new FormData()
        for (const p of parts) {
          if (p.asFile) form.append(p.name, new Blob([p.value], { type: p.type }), 'x')
          else form.append(p.name, p.value)
        }
        const res = await fetch(server.url('/api/v1/upload'), {
          method: 'POST',
          headers: { 'X-API-Key': server.key },
          body: form,
          signal: AbortSignal.timeout(10_000)
        })
        expectClearAnswer({ status: res.status, body: await json(res) })
      }),
      { numRuns: 200 }
    )
  })
})
