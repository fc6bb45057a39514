/**
 * Studio mode for a coordinator (`clipdesk serve --queue redis://…`): an engine whose
 * dispatcher is the BullMQ coordinator, and, unless turned off, the coordinator's own worker
 * running jobs with the engine's model and decode sandbox.
 */
import { hostname } from 'node:os'
import { Engine, type EngineSeams } from '../engine/engine'
import type { EngineOptions } from '../engine/options'
import type { Dispatcher } from '../engine/queue/dispatcher'
import { StudioCoordinator } from './coordinator'
import { LocalLink } from './local-link'
import { StudioWorker } from './worker'

export interface StudioOptions {
  queueUrl: string
  /** The coordinator also runs jobs itself. @default true */
  localWorker?: boolean
  /** Lock/stall interval of the local worker. @default 30 s */
  lockMs?: number
}

export interface Studio {
  engine: Engine
  coordinator: StudioCoordinator
}

/** Wraps the coordinator so that the local worker starts and stops with the engine. */
function withLocalWorker(coordinator: StudioCoordinator, worker: StudioWorker | null): Dispatcher {
  return {
    requeuesOnStart: false,
    get activeCount() {
      return coordinator.activeCount + (worker?.activeCount ?? 0)
    },
    start: () => {
      coordinator.start()
      worker?.start()
    },
    wake: () => coordinator.wake(),
    cancel: (jobId) => {
      worker?.abort(jobId)
      return coordinator.cancel(jobId)
    },
    assertAvailable: () => coordinator.assertAvailable(),
    stop: async () => {
      await Promise.race([worker?.stop(), new Promise((r) => setTimeout(r, 10_000).unref())])
      await coordinator.stop()
    }
  }
}

export function createStudioEngine(engineOptions: EngineOptions, opts: StudioOptions): Studio {
  const made: { coordinator?: StudioCoordinator } = {}
  const seams: EngineSeams = {
    dispatcher: (engine, ctx) => {
      const coordinator = new StudioCoordinator(engine, ctx, { queueUrl: opts.queueUrl })
      made.coordinator = coordinator
      const worker =
        opts.localWorker === false
          ? null
          : new StudioWorker({
              queueUrl: opts.queueUrl,
              link: new LocalLink(coordinator, { name: `${hostname()} (coordinator)`, device: 'cpu' }),
              segmenter: () => ctx.segmenter(),
              decode: (bytes, _maxPixels, signal) => ctx.decode(bytes, signal),
              toNative: (rgba, width, height, target, signal) => ctx.toNative(rgba, width, height, target, signal),
              concurrency: engine.options.concurrency,
              lockMs: opts.lockMs
            })
      return withLocalWorker(coordinator, worker)
    }
  }
  const engine = new Engine(engineOptions, seams)
  return { engine, coordinator: made.coordinator! }
}
