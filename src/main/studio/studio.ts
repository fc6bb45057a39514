/**
 * Studio mode for a coordinator (`clipdesk serve --queue redis://…`): an engine whose
 * dispatcher is the BullMQ coordinator, and, unless turned off, the coordinator's own worker
 * running jobs with the engine's model and decode sandbox.
 */
import { hostname } from 'node:os'
import { createEngine } from '../engine/create'
import type { EnginePort, EngineSeams } from '../engine/ports'
import { EngineError } from '../engine/errors'
import type { EngineOptions } from '../engine/options'
import type { Dispatcher } from '../engine/public-run'
import { StudioCoordinator } from './coordinator'
import { LocalLink } from './local-link'
import { StudioWorker } from './worker'

/** The key column of the coordinator's own worker in the workers list (it calls with no key). */
export const LOCAL_WORKER_KEY = 'coordinator'

export interface StudioOptions {
  queueUrl: string
  /** The coordinator also runs jobs itself. @default true */
  localWorker?: boolean
  /** Lock/stall interval of the local worker, and the lease of every claim. @default 30 s */
  lockMs?: number
  /** The most one result upload may carry. @default 8 × the upload limit */
  maxResultBytes?: number
}

export interface Studio {
  engine: EnginePort
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
    // A hint and look-again boxes stay beside the coordinator's upload and only its own worker
    // applies them (`runs.ts`, `claim`): with none, such a job would wait in the queue for ever.
    ...(worker === null && {
      assertRunnable: (needs: { hint: boolean; regions: boolean }) => {
        const field = needs.hint ? 'hint' : needs.regions ? 'regions' : null
        if (field === null) return
        throw new EngineError(
          'validation_failed',
          `This server runs no local worker (--no-local-worker), and ${field === 'hint' ? 'a hint' : 'look-again boxes'} can only be applied by the coordinator's own worker; send the photo without ${field}, or use a coordinator with its local worker.`,
          { details: [{ field, issue: 'needs the coordinator’s own worker, which this server does not run' }] }
        )
      }
    }),
    stop: async () => {
      // Jobs running here go back to the queue, as the local scheduler's do.
      await Promise.race([worker?.stop(true), new Promise((r) => setTimeout(r, 10_000).unref())])
      await coordinator.stop()
    }
  }
}

export function createStudioEngine(engineOptions: EngineOptions, opts: StudioOptions): Studio {
  const made: { coordinator?: StudioCoordinator } = {}
  const seams: EngineSeams = {
    dispatcher: (engine, access) => {
      const coordinator = new StudioCoordinator(engine, access, {
        queueUrl: opts.queueUrl,
        leaseMs: opts.lockMs,
        maxResultBytes: opts.maxResultBytes
      })
      made.coordinator = coordinator
      const worker =
        opts.localWorker === false
          ? null
          : new StudioWorker({
              queueUrl: opts.queueUrl,
              link: new LocalLink(coordinator.runs, { keyId: LOCAL_WORKER_KEY, name: `${hostname()} (coordinator)`, device: 'cpu' }),
              deps: access.executorDeps(),
              concurrency: engine.options.concurrency,
              lockMs: opts.lockMs
            })
      return withLocalWorker(coordinator, worker)
    }
  }
  const engine = createEngine(engineOptions, seams)
  return { engine, coordinator: made.coordinator! }
}
