/**
 * The render step (compose + encode) on its own, with real sharp and ag-psd: the outputs in
 * memory or written to their files, the bytes limit of a job, and the same result both ways.
 * That the engine runs it in a sandbox process is test/output-cost-jobs.test.ts.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../../../../test/helpers/engine'
import { BACKGROUND_DEFAULTS, CLIPPING_DEFAULTS } from '../../../../shared/params-types'
import { paramsOf } from '../../../../../test/fixtures/compose-fixtures'
import { JobFailure } from '../../errors'
import { forRender, renderOutputs, renderToFiles, type RenderInput } from './render'
import { solidRgba } from '../../../../../test/fixtures/test-fixtures'

const dir = tempDir('clipdesk-render-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function input(format: RenderInput['format']): RenderInput {
  const width = 64
  const height = 48
  const alpha = Buffer.alloc(width * height)
  for (let y = 8; y < 40; y++) alpha.fill(255, y * width + 16, y * width + 48)
  const data = solidRgba(width, height, [200, 60, 30, 255])
  return {
    image: { data, width, height, channels: 4, hasAlpha: false, warnings: ['animated GIF: only the first frame was used'] },
    alpha: { alpha, foreground: data, source: 'model', warnings: [] },
    params: BACKGROUND_DEFAULTS,
    format
  }
}

describe('renderOutputs', () => {
  it('makes every variation of the set, input warnings with the primary', async () => {
    const result = await renderOutputs(input('png'))
    expect(result.outputs.map((o) => `${o.variation}.${o.ext}`)).toEqual(['clipping.png', 'background.png', 'compose.png', 'shadowTop.png'])
    expect(result.warnings.compose).toEqual(['animated GIF: only the first frame was used'])
  })

  it('writes each output to its file as soon as it is encoded, the same bytes as in memory', async () => {
    const inMemory = await renderOutputs(input('psd'))
    const stored = await renderToFiles(input('psd'), join(dir, 'job'))
    expect(stored.outputs.map((o) => o.path)).toEqual(
      ['clipping', 'background', 'compose', 'shadowTop'].map((v) => join(dir, 'job', `${v}.psd`))
    )
    for (const [i, out] of stored.outputs.entries()) {
      const bytes = readFileSync(out.path)
      expect(out.size).toBe(bytes.length)
      expect(bytes.equals(inMemory.outputs[i]!.bytes)).toBe(true)
    }
  })

  it('outputs over the bytes a job may leave fail the job image_too_large', async () => {
    const err = await renderOutputs(input('png'), { maxBytes: 1000 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JobFailure)
    expect((err as JobFailure).reason).toBe('image_too_large')
    expect((err as JobFailure).message).toBe(
      'the outputs would take more than 0.001 MB, the most a job may leave; ask for fewer variations, a smaller size or another format'
    )
  })
})

describe('forRender: what is handed to the render sandbox', () => {
  it("leaves the photo's pixels out where compose does not read them, with the same outputs", async () => {
    // A clipping PNG is made from the refined colours and the alpha: the photo's pixels stay behind.
    const clipping = {
      ...input('png'),
      params: CLIPPING_DEFAULTS,
      alpha: { ...input('png').alpha, foreground: solidRgba(64, 48, [10, 200, 30, 255]) }
    }
    const sent = forRender(clipping)
    expect(sent.image.data.length).toBe(0)
    const full = await renderOutputs(clipping)
    const trimmed = await renderOutputs(sent)
    expect(trimmed.outputs.map((o) => o.bytes.equals(full.outputs[0]!.bytes))).toEqual([true])
    // A colour background reads no photo pixels either.
    expect(forRender({ ...clipping, params: paramsOf('variations=clipping,compose;background=#fff') }).image.data.length).toBe(0)
  })

  it('keeps them for a layered PSD, a blurred-photo background and an input in its own colour space', () => {
    const png = input('png')
    expect(forRender(input('psd')).image.data.length).toBe(64 * 48 * 4)
    expect(forRender({ ...png, params: paramsOf('variations=clipping,compose;background=blur') }).image.data.length).toBe(64 * 48 * 4)
    const native = {
      ...png,
      params: CLIPPING_DEFAULTS,
      image: { ...png.image, native: { data: Buffer.alloc(8), depth: 16, space: 'cmyk' } as never }
    }
    expect(forRender(native).image.data.length).toBe(64 * 48 * 4)
  })

  it('a compose that needs the pixels and did not get them fails the job pipeline_error, not a wrong image', async () => {
    const psd = input('psd')
    const err = await renderOutputs({ ...psd, image: { ...psd.image, data: Buffer.alloc(0) } }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JobFailure)
    expect((err as JobFailure).reason).toBe('pipeline_error')
  })
})
