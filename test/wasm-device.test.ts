/**
 * The WebAssembly build of ONNX Runtime as the engine's device: where the native runtime cannot
 * load (no binary for the platform, e.g. Intel macOS; here forced by `device: wasm`), a job still
 * runs the real built-in IS-Net, its status and `/api/v1/health` say `wasm`, and the cutout
 * matches the native one. One WebAssembly inference (~8 s on 2 cores) and one native.
 */
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scenePng } from './fixtures/test-fixtures'
import { multipart, pollUntilSettled, startTestServer, type TestServer } from './helpers/engine'
import { json } from './helpers/http'

let wasm: TestServer
let native: TestServer
let photo: Buffer

beforeAll(async () => {
  photo = await scenePng()
  wasm = await startTestServer({ device: 'wasm' })
  native = await startTestServer({})
})
afterAll(async () => {
  await wasm?.close()
  await native?.close()
})

async function cutout(server: TestServer): Promise<{ body: Record<string, any>; alpha: Buffer }> {
  const res = await fetch(server.url('/api/v1/upload'), {
    method: 'POST',
    headers: { 'X-API-Key': server.key },
    body: multipart(
      { mode: 'clipping', params: 'refine=none', output_format: 'png' },
      { bytes: photo, type: 'image/png', name: 'scene.png' }
    )
  })
  const accepted = await json(res)
  expect(res.status, JSON.stringify(accepted)).toBe(202)
  const { status, body } = await pollUntilSettled(server, accepted.job_id)
  expect(status, JSON.stringify(body)).toBe(200)
  const png = Buffer.from(await (await fetch(body.final_url)).arrayBuffer())
  return { body, alpha: await sharp(png).extractChannel(3).raw().toBuffer() }
}

describe('device wasm', () => {
  it('runs the job on WebAssembly, reports it, and matches the native cutout', async () => {
    const a = await cutout(wasm)
    expect(a.body.device).toBe('wasm')
    const health = await json(await fetch(wasm.url('/api/v1/health'), { headers: { 'X-API-Key': wasm.key } }))
    expect(health).toMatchObject({ device_setting: 'wasm', device: 'wasm', session: { backend: 'wasm', optimized_model: 'none' } })

    const b = await cutout(native)
    expect(b.body.device).toBe('cpu')
    // Both runtimes run the same graph: the cutouts agree but for rounding at the edge.
    let both = 0
    let either = 0
    for (let i = 0; i < a.alpha.length; i++) {
      const x = a.alpha[i]! >= 128
      const y = b.alpha[i]! >= 128
      if (x && y) both++
      if (x || y) either++
    }
    expect(either).toBeGreaterThan(0)
    expect(both / either).toBeGreaterThan(0.99)
  })
})
