/**
 * The body of `GET /api/v1/health`, kept apart from the engine class: what it says of the
 * default model and its session on this machine.
 */
import type { SessionSettings } from '../../shared/models'
import type { ModelPool } from './segment/models/pool'
import type { ModelRegistry } from './segment/models/registry'

/**
 * Body of `GET /api/v1/health`. `device`: what runs the default model, null until it is loaded.
 * `degraded` (answered with 503) while a sandbox pool cannot start processes, `reason` saying
 * why: jobs and uploads fail meanwhile, and a supervisor that only reads the status sees it.
 */
export interface HealthBody {
  status: 'ok' | 'degraded'
  /** Why the status is `degraded`; null when it is `ok`. */
  reason: string | null
  model: string
  device_setting: string
  device: string | null
  device_warning: string | null
  queued: number
  /** How the default model's session is set up on this machine; null until it is loaded. */
  session: HealthSession | null
}

/** `SessionSettings` as the HTTP API spells it (snake_case, as every field of its bodies). */
export interface HealthSession {
  backend: SessionSettings['backend']
  threads: number
  chosen_by: SessionSettings['chosenBy']
  run_ms: Record<string, number> | null
  measured_at: string | null
  arena: boolean
  optimized_model: SessionSettings['optimizedModel']
  cpu: SessionSettings['cpu']
}

function healthSession(s: SessionSettings): HealthSession {
  return {
    backend: s.backend,
    threads: s.threads,
    chosen_by: s.chosenBy,
    run_ms: s.runMs,
    measured_at: s.measuredAt,
    arena: s.arena,
    optimized_model: s.optimizedModel,
    cpu: s.cpu
  }
}

/**
 * `GET /api/v1/health`: up, the default model and the device that runs it (once loaded);
 * `problems`: what keeps the engine from working now (`DecodeSandbox.startProblems`).
 */
export function healthBody(models: ModelRegistry, pool: ModelPool, queued: number, problems: readonly string[] = []): HealthBody {
  const model = models.defaultModel()
  const session = pool.status(model)
  return {
    status: problems.length > 0 ? 'degraded' : 'ok',
    reason: problems.length > 0 ? problems.join('; ') : null,
    model,
    device_setting: pool.device(),
    device: session?.activeDevice ?? null,
    device_warning: session?.deviceWarning ?? null,
    queued,
    session: session ? healthSession(session.settings) : null
  }
}
