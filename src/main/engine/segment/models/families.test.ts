/**
 * Each descriptor family run end to end with real onnxruntime on graphs generated here: a 1×1
 * convolution whose output is a known function of the input pixel, so the test can say what
 * the mask must be after the pipeline's resize, normalisation, output read and resize back.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { JobFailure } from '../../errors'
import { Segmenter, type SegmentInput } from '../mask/mask'
import { KNOWN_DESCRIPTORS, type ModelDescriptor } from '../session/descriptors'
import { convSegmentationModel } from './onnx-writer'

const open: Segmenter[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

/** A generated model as the registry hands one over (no machine cache: these keys do not name the bytes). */
const source = (key: string, bytes: Uint8Array, descriptor: ModelDescriptor) => ({
  model: { key, load: async () => bytes.slice(), descriptor },
  cacheDir: null
})

async function create(bytes: Uint8Array, descriptor: ModelDescriptor, device: 'cpu' | 'cuda' = 'cpu'): Promise<Segmenter> {
  const s = await Segmenter.create({ ...source(`test-${descriptor.family}`, bytes, descriptor), device, threads: 1 })
  open.push(s)
  return s
}

/** 40×30 RGB: left half `left`, right half `right`. */
function halves(left: [number, number, number], right: [number, number, number]): SegmentInput {
  const w = 40
  const h = 30
  const data = Buffer.alloc(w * h * 3)
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(x < w / 2 ? left : right, (y * w + x) * 3)
  return { data, width: w, height: h, channels: 3 }
}

/** The mask at a point well inside each half (away from the resampled edge). */
const sides = (mask: Buffer): [number, number] => [mask[15 * 40 + 4]!, mask[15 * 40 + 35]!]

const sigmoid255 = (x: number): number => Math.round(255 / (1 + Math.exp(-x)))

const custom = (over: Partial<ModelDescriptor['input']>, kind: 'logits' | 'probabilities', outputName?: string): ModelDescriptor => ({
  family: 'custom',
  input: { size: [1024, 1024], dynamic: false, channelOrder: 'rgb', scale: 255, mean: [0.5, 0.5, 0.5], std: [1, 1, 1], ...over },
  output: { kind, ...(outputName ? { name: outputName } : {}) },
  licence: 'test',
  source: 'generated',
  speedClass: 'fast'
})

describe('descriptor families on generated graphs', () => {
  it('fixed 1024² + ImageNet normalisation + logits (BiRefNet family): sigmoid of the normalised red plane', async () => {
    const s = await create(convSegmentationModel({ size: [1024, 1024], weights: [1, 0, 0], sideOutput: true }), {
      ...KNOWN_DESCRIPTORS['birefnet-general']!,
      output: { name: 'output', kind: 'logits' }
    })
    const mask = await s.segment(halves([200, 10, 10], [40, 250, 250]))
    expect(mask.length).toBe(40 * 30)
    const f = (r: number): number => sigmoid255((r / 255 - 0.485) / 0.229)
    expect(sides(mask)).toEqual([f(200), f(40)])
    expect(s.device).toBe('cpu')
  })

  it('fixed 320² + 0.5-centred normalisation + probabilities: the red value itself', async () => {
    const s = await create(
      convSegmentationModel({ size: [320, 320], weights: [1, 0, 0], bias: 0.5 }),
      custom({ size: [320, 320] }, 'probabilities')
    )
    const run = await s.segmentAtModelSize(halves([200, 0, 0], [40, 0, 0]))
    expect([run.width, run.height]).toEqual([320, 320])
    expect(sides(await s.segment(halves([200, 0, 0], [40, 0, 0])))).toEqual([200, 40])
  })

  it('dynamic spatial size: fed at the descriptor size, mask resized back to the image', async () => {
    const s = await create(
      convSegmentationModel({ size: null, weights: [0, 1, 0], bias: 0.5 }),
      custom({ size: [64, 48], dynamic: true }, 'probabilities')
    )
    const run = await s.segmentAtModelSize(halves([0, 180, 0], [0, 20, 0]))
    expect([run.width, run.height, run.mask.length]).toEqual([64, 48, 64 * 48])
    expect(sides(await s.segment(halves([0, 180, 0], [0, 20, 0])))).toEqual([180, 20])
  })

  it('bgr channel order with per-channel mean/std: the first plane is blue', async () => {
    const d = custom({ size: [32, 32], channelOrder: 'bgr', mean: [0.1, 0.2, 0.3], std: [0.5, 1, 2] }, 'probabilities')
    // plane0 = (B/255 − 0.1) / 0.5 → ×0.5 + 0.1 gives B/255 back
    const s = await create(convSegmentationModel({ size: [32, 32], weights: [0.5, 0, 0], bias: 0.1 }), d)
    expect(sides(await s.segment(halves([0, 0, 150], [255, 255, 60])))).toEqual([150, 60])
  })

  it('refuses a graph whose input shape is not the descriptor’s, naming both shapes', async () => {
    const err = await Segmenter.create({
      ...source('x', convSegmentationModel({ size: [1024, 1024], weights: [1, 0, 0], channels: 1 }), custom({}, 'logits')),
      threads: 1
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JobFailure)
    expect((err as JobFailure).reason).toBe('model_unavailable')
    expect((err as Error).message).toContain('input "input": expected shape [1, 3, 1024, 1024], got [1, 1, 1024, 1024]')
  })

  it('refuses a fixed 320² graph described as 1024², and a missing output name', async () => {
    const small = convSegmentationModel({ size: [320, 320], weights: [1, 0, 0] })
    const e1 = await Segmenter.create({ ...source('x', small, custom({}, 'logits')), threads: 1 }).catch((e: Error) => e)
    expect((e1 as Error).message).toContain('expected shape [1, 3, 1024, 1024], got [1, 3, 320, 320]')
    const e2 = await Segmenter.create({ ...source('x', small, custom({ size: [320, 320] }, 'logits', 'mask')), threads: 1 }).catch(
      (e: Error) => e
    )
    expect((e2 as Error).message).toContain('the model has no output named "mask"; its outputs are "output"')
  })

  it('a file that is not ONNX is refused as model_unavailable', async () => {
    const err = await Segmenter.create({
      ...source('x', new TextEncoder().encode('not a model at all'), custom({}, 'logits')),
      threads: 1
    }).catch((e: unknown) => e)
    expect((err as JobFailure).reason).toBe('model_unavailable')
    expect((err as Error).message).toMatch(/^cannot start the model x: /)
  })

  it('device=cuda without CUDA libraries falls back to the CPU and says why', async () => {
    const s = await create(
      convSegmentationModel({ size: [32, 32], weights: [1, 0, 0], bias: 0.5 }),
      custom({ size: [32, 32] }, 'probabilities'),
      'cuda'
    )
    expect(s.device).toBe('cpu')
    expect(s.deviceWarning).toMatch(/^the cuda execution provider could not be used \(.+\); running on the CPU$/)
    expect(sides(await s.segment(halves([100, 0, 0], [30, 0, 0])))).toEqual([100, 30])
  })
})
