/**
 * What a forced second look costs (docs/api.md §3): `look=always` (or its old name
 * `refine=detail`) adds 4 credits, one per view it may take, in the job's one charge; the
 * default `look=auto` adds nothing. No model runs here (the engine does not run its queue).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { multipart, postUpload, startTestServer, type TestServer } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'

describe('credits for a forced second look', () => {
  let server: TestServer
  let file: Buffer
  beforeAll(async () => {
    server = await startTestServer({ run: false })
    file = await tinyPng(64, 48)
  })
  afterAll(() => server.close())

  const postAs = (key: string, params: string): Promise<{ status: number; body: any }> =>
    postUpload(server, multipart({ mode: 'clipping', params }, { bytes: file, type: 'image/png' }), key)

  it('look=always costs 4 credits more, refused with 402 naming them when the key cannot pay; auto and off cost 1', async () => {
    const { key, info } = server.engine.createKey({ credits: 4 })
    const short = await postAs(key, 'look=always')
    expect(short.status).toBe(402)
    expect(short.body.error.code).toBe('insufficient_credits')
    expect(short.body.error.message).toBe(
      'This API key has 4 credits left; this job costs 5 credits (1 for its outputs, one per started 100 MP of output, and 4 for the second look it asks for (look=always), one per view).'
    )
    expect(server.engine.key(info.id)!.credits).toBe(4)
    expect((await postAs(key, 'look=auto')).status).toBe(202)
    expect((await postAs(key, 'look=off')).status).toBe(202)
    expect(server.engine.key(info.id)!.credits).toBe(2)

    const rich = server.engine.createKey({ credits: 10 })
    const forced = await postAs(rich.key, 'refine=detail')
    expect(forced.status).toBe(202)
    expect(server.engine.creditsHeldFor(forced.body.job_id)).toBe(5)
    expect(server.engine.key(rich.info.id)!.credits).toBe(5)
  })
})
