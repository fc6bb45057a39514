/**
 * The preset editor's preview shows exactly the file a preset writes (docs/params.md "Mode and
 * parameter set"): the preview's job, as the editor sends it (`previewRequest`) over the app
 * API, gives the same pixels as `clipdesk process --params` with the same set on the same photo.
 * The set is one the editor builds when Shadow is "Contact shadow" and Main file is "Default":
 * both show the shadow. A small subject enlarged to fill gives the preview the warning the written
 * file gets, in the same words (`jobWarnings`). The input keeps its own transparency
 * (`alpha=keep`): no model runs.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngineHandlers } from '../src/main/app-api/engine-handlers'
import { jobOutcome } from '../src/main/outputs/engine-jobs'
import { previewRequest } from '../src/shared/presets'
import { runCli } from './helpers/cli'
import { blockPng, redBox, rgbaOf } from './helpers/cutout'
import { startTestServer, tempDir, type TestServer } from './helpers/engine'

/** The preview's job as the editor runs it, to its end. */
async function runPreview(ipc: ReturnType<typeof createEngineHandlers>, params: string, photo: Buffer): Promise<string> {
  const accepted = await ipc.upload(previewRequest(params, { bytes: new Uint8Array(photo), name: 'sample.png', type: 'image/png' }))
  expect(accepted.status).toBe(202)
  const jobId = 'job_id' in accepted.body ? accepted.body.job_id : ''
  while (jobOutcome(server.engine, jobId, false).state === 'pending') await new Promise((r) => setTimeout(r, 50))
  return jobId
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe('preset preview', () => {
  it('a preset with a contact shadow and the default main file: the preview is the written file, shadow included', async () => {
    // What the editor's form gives for these choices (src/renderer/src/lib/lib.test.ts holds the form to it).
    const params = 'background=#F5F5DC;shadow=top;crop=subject;size=600x600;margin=8%;alpha=keep'
    const photo = await blockPng(300, 240, { x: 60, y: 40, width: 160, height: 150 })

    // The preview, as the editor runs it.
    const ipc = createEngineHandlers(server.engine)
    const accepted = await ipc.upload(previewRequest(params, { bytes: new Uint8Array(photo), name: 'sample.png', type: 'image/png' }))
    expect(accepted.status).toBe(202)
    const jobId = 'job_id' in accepted.body ? accepted.body.job_id : ''
    let outcome = jobOutcome(server.engine, jobId, false)
    while (outcome.state === 'pending') {
      await new Promise((r) => setTimeout(r, 50))
      outcome = jobOutcome(server.engine, jobId, false)
    }
    expect(outcome.state).toBe('done')
    if (outcome.state !== 'done') return
    const { body } = await ipc.status(jobId)
    expect('final_url' in body && body.final_url).toMatch(/\/shadowTop\.png$/) // what the preview shows
    const preview = await rgbaOf(outcome.results[0]!.path)

    // The file the same set writes.
    const root = tempDir()
    mkdirSync(join(root, 'in'))
    writeFileSync(join(root, 'in', 'photo.png'), photo)
    const r = runCli(['process', join(root, 'in'), '--out', join(root, 'out'), '--params', params, '--data-dir', join(root, 'data')])
    expect(r.code, r.stderr).toBe(0)
    const written = await rgbaOf(join(root, 'out', 'photo.png'))

    expect([preview.width, preview.height]).toEqual([written.width, written.height])
    expect(preview.data.equals(written.data)).toBe(true)
    // And both carry the shadow: under the block's base the beige is darker.
    const box = redBox(written)!
    const under = written.at(Math.round(box.x + box.width / 2), box.y + box.height + 3)
    expect(under[0]).toBeLessThan(235)
    expect(written.at(5, 5)).toEqual([245, 245, 220, 255])
  })

  it('a small subject enlarged to fill: the preview gives the warning the written file gets, in the same words', async () => {
    const params = 'background=#FFFFFF;crop=subject;size=2000x2000;margin=5%;alpha=keep'
    // A 60×50 block: filling 1800 px of a 2000×2000 canvas enlarges it 30×.
    const photo = await blockPng(300, 240, { x: 100, y: 80, width: 60, height: 50 })
    const ipc = createEngineHandlers(server.engine)
    const jobId = await runPreview(ipc, params, photo)
    const { body } = await ipc.status(jobId)
    expect(body).not.toHaveProperty('warnings') // final_url, as /api/v1 gives it: the app asks apart
    const shown = await ipc.jobWarnings(jobId)
    expect(shown).toHaveLength(1)
    expect(shown[0]).toMatch(/^On background: enlarged 30\.0×: the subject \(60×50 px\) is small for a 2000×2000 canvas, so it looks soft/)

    // The same words as the report of `clipdesk process` with the same set on the same photo.
    const root = tempDir()
    mkdirSync(join(root, 'in'))
    writeFileSync(join(root, 'in', 'photo.png'), photo)
    const r = runCli(['process', join(root, 'in'), '--out', join(root, 'out'), '--params', params, '--data-dir', join(root, 'data')])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(readFileSync(join(root, 'out', 'clipdesk-report.json'), 'utf8')) as { warnings: Array<{ warning: string }> }
    expect(report.warnings.map((w) => w.warning)).toEqual(shown)

    // A subject enlarged less than 2× (1000 px to 1800): none. An unknown job: 404 job_not_found.
    const big = await runPreview(ipc, params, await blockPng(1100, 1100, { x: 50, y: 50, width: 1000, height: 1000 }))
    expect(await ipc.jobWarnings(big)).toEqual([])
    await expect(ipc.jobWarnings('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'job_not_found' })
  })
})
