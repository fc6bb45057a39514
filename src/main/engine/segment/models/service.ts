/**
 * What the transports (CLI, IPC, HTTP health) do with models: list, add (checked by loading
 * it and running it once on a sample), remove, choose the default and the device, test-run.
 */
import type { ModelInfo, ModelTestRun } from '../../../../shared/models'
import { EngineError, JobFailure } from '../../errors'
import type { SegmentInput } from '../mask/mask'
import { resolveDevice } from '../session/devices'
import type { ModelPool } from './pool'
import { savedSessionSettings } from '../session/session-factory'
import type { AddModelRequest, ModelRegistry } from './registry'
import { errorText } from '../../../../shared/errors'

/** The sample a test run segments: a light disc on a dark ground, 320 × 240, made here. */
export function sampleImage(): SegmentInput {
  const width = 320
  const height = 240
  const data = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = (x - 160) ** 2 + (y - 120) ** 2 < 80 ** 2
      data.set(inside ? [230, 180, 120] : [30, 40, 50], (y * width + x) * 3)
    }
  }
  return { data, width, height, channels: 3 }
}

export class ModelService {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly pool: ModelPool
  ) {}

  list(): ModelInfo[] {
    const device = this.pool.device()
    const onCpu = resolveDevice(device) === 'cpu'
    return this.registry.all().map((m) => {
      const session = this.pool.status(m.name)
      // Not loaded: what this machine measured and kept for it, where the CPU would run it.
      const cacheDir = this.pool.cacheDir()
      let saved = null
      try {
        saved = !session && onCpu && cacheDir ? savedSessionSettings(this.registry.modelId(m), cacheDir) : null
      } catch {
        // a broken model install: listed without, and its load says what is wrong
      }
      return this.registry.info(m, session, device, saved)
    })
  }

  /**
   * Adds a model file. It is loaded and run once on the sample before it counts as added; a
   * file that does not load or does not match its descriptor is refused with ORT's or the
   * shape check's message (`validation_failed`, field `file`).
   */
  async add(req: AddModelRequest): Promise<{ model: ModelInfo; test: ModelTestRun }> {
    const m = await this.registry.register(req)
    try {
      const test = await this.test(m.name)
      return { model: this.registry.info(m, this.pool.status(m.name), this.pool.device()), test }
    } catch (err) {
      this.registry.remove(m.name)
      const message = errorText(err)
      throw new EngineError('validation_failed', `The model was not added: ${message}`, { details: [{ field: 'file', issue: message }] })
    }
  }

  remove(name: string): void {
    this.registry.remove(name)
  }

  setDefault(name: string): void {
    this.registry.setDefault(name)
  }

  setDevice(device: string): void {
    this.registry.setDevice(device)
  }

  /** Runs `name` once on the sample image: the device that ran it and the inference time. */
  async test(name: string): Promise<ModelTestRun> {
    if (!this.registry.get(name)) throw this.registry.unknown(name, 'name')
    const s = await this.pool.acquire(name)
    try {
      const run = await s.segmentAtModelSize(sampleImage())
      let above = 0
      for (const v of run.mask) if (v >= 128) above++
      return {
        name,
        device: s.device,
        deviceWarning: s.deviceWarning,
        inferenceMs: Math.round(run.inferenceMs),
        foregroundShare: above / run.mask.length
      }
    } catch (err) {
      throw err instanceof JobFailure ? err : new JobFailure('pipeline_error', String(err))
    } finally {
      this.pool.release(s)
    }
  }
}
