import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JobFailure } from '../../errors'
import { Segmenter } from './mask'
import { SCENE, sceneMaskScores, scenePng } from '../../../../../test/fixtures/test-fixtures'

// One real inference (~3 s on 2 cores) for the whole file; everything else is refused before
// the model runs.
describe('Segmenter (real IS-Net model)', () => {
  let segmenter: Segmenter

  beforeAll(async () => {
    segmenter = await Segmenter.create({ variant: 'medium' })
  })

  afterAll(async () => {
    await segmenter.close()
  })

  it('masks the ball and clears the background; a queued run aborted while waiting never runs', async () => {
    // 3-channel input this time (the pipeline passes RGBA): both are accepted.
    const { data, info } = await sharp(await scenePng())
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect(info.channels).toBe(3)
    const image = { data, width: info.width, height: info.height, channels: 3 as const }

    const first = segmenter.segment(image)
    const controller = new AbortController()
    // Settled into a value at once, so its rejection is handled while we await the first run.
    const second = segmenter.segment(image, controller.signal).then(
      () => 'ran',
      (e: unknown) => e
    )
    const reason = new Error('cancelled by the test')
    // Runs are serialised: the second waits for the first, and sees the abort before it starts.
    setTimeout(() => controller.abort(reason), 50)

    // Inference runs in a worker thread: this thread's event loop keeps turning meanwhile.
    // (A blocked loop would let the interval fire at most once, after the run.)
    let ticks = 0
    const ticker = setInterval(() => ticks++, 20)
    const mask = await first
    clearInterval(ticker)
    expect(ticks).toBeGreaterThan(1)
    // Runs keep call order, so the second was still waiting when it was aborted.
    expect(await second).toBe(reason)

    expect(mask.length).toBe(SCENE.width * SCENE.height)
    const scores = sceneMaskScores(mask)
    expect(scores.foreground).toBeGreaterThan(0.95)
    expect(scores.background).toBeGreaterThan(0.95)
  })

  it('throws the reason of an already-aborted signal', async () => {
    const reason = new Error('gone')
    const image = { data: Buffer.alloc(4 * 4 * 4), width: 4, height: 4, channels: 4 as const }
    await expect(segmenter.segment(image, AbortSignal.abort(reason))).rejects.toBe(reason)
  })

  it('refuses pixel data that does not match the stated size', async () => {
    const image = { data: Buffer.alloc(4 * 4 * 3), width: 4, height: 4, channels: 4 as const }
    const err = await segmenter.segment(image).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JobFailure)
    expect((err as JobFailure).reason).toBe('pipeline_error')
  })

  it('refuses to run once closed', async () => {
    await segmenter.close()
    const image = { data: Buffer.alloc(4 * 4 * 4), width: 4, height: 4, channels: 4 as const }
    await expect(segmenter.segment(image)).rejects.toMatchObject({ reason: 'pipeline_error' })
  })
})
