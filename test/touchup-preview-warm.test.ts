/**
 * The touch-up preview opened after the model's session was let go (the pool closes it when
 * idle, docs/pipeline.md): the first preview takes the mask from the cache without the model,
 * and loads the session meanwhile, so that a first look-again box costs its model run and not
 * the session's load too (docs/touch-up.md "Touch-up"). Real engine, real model (one job).
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Engine } from '../src/main/engine/engine'
import { JobEnds } from '../src/main/outputs/engine-jobs'
import { scenePng, SCENE } from './helpers/fixtures'
import { tempDir } from './helpers/engine'

let root: string
let engine: Engine

/** The pool's idle time here: long beside the poll below, so that a session loaded again is seen before it goes. */
const IDLE_MS = 3000

/** Whether the model's session is loaded now, as the models list shows it. */
const resident = (model: string): boolean | undefined => engine.modelService.list().find((m) => m.name === model)?.resident

beforeAll(() => {
  root = tempDir('clipdesk-preview-warm-')
  // A short idle time, so that the pool lets the session go soon after the job, as it does after five minutes in the app.
  engine = new Engine({ dataDir: root, modelIdleCloseMs: IDLE_MS })
  engine.start()
})

afterAll(async () => {
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('the touch-up preview and the model session', () => {
  it('opening the editor loads the session the pool let go, without running the model for the preview', { timeout: 240_000 }, async () => {
    const { job_id: jobId } = await engine.upload({
      fields: { output_format: 'png' },
      file: { bytes: await scenePng(), mimeType: 'image/png', filename: 'ball.png' },
      keyId: null
    })
    const ends = new JobEnds(engine)
    try {
      await ends.wait(jobId)
    } finally {
      ends.close()
    }
    const job = engine.job(jobId)!
    expect(job.status).toBe('done')
    const model = job.model!
    // After the pool's idle time: no session resident.
    await expect.poll(() => resident(model), { timeout: 60_000, interval: 100 }).toBe(false)

    const previews = engine.hintPreviews()
    const opened = await previews.preview({ key: jobId, inputPath: job.inputPath!, model, params: engine.jobParamSet(jobId)! }, null)
    expect([opened.width, opened.height]).toEqual([SCENE.width, SCENE.height])
    await expect.poll(() => resident(model), { timeout: 120_000, interval: 200 }).toBe(true)
  })
})
