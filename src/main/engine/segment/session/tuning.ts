/**
 * How many threads a model's session gets on this machine, chosen by measurement where the
 * platform leaves a real choice, and remembered per machine and model.
 *
 * The candidates: the cores that run a parallel section well (physical cores, one hardware
 * thread each; Apple silicon's performance cores), and every hardware thread where that is
 * more. ONNX Runtime's parallel sections wait for their slowest thread, so a second hardware
 * thread of a busy core or an efficiency core can slow every step; on other CPUs the extra
 * threads help. Where the two counts are the same (this 2-core VM) there is nothing to
 * measure. Where they differ, each is timed on the model itself at its first load (one
 * warm-up and two timed runs each, a few seconds once), the fastest is kept, a count within 3 %
 * of a smaller one loses to it (the cores left over run decode, refine and encode of the
 * neighbouring photos), and the choice is saved under `<cache>/tuning/`. A new fingerprint (CPU,
 * ONNX Runtime) or another model measures again. The figures are shown where the device is
 * (`clipdesk models list`, `GET /api/v1/health`, the app's Settings).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CpuProfile } from './machine'

export interface ThreadChoice {
  threads: number
  /** `measured`: the fastest of the candidates; `only-choice`: one candidate; `setting`: given by the caller. */
  chosenBy: 'measured' | 'only-choice' | 'setting'
  /** Milliseconds per run of each measured thread count (best of the timed runs). */
  runMs: Record<string, number> | null
  measuredAt: string | null
}

/** Within this share of a smaller count's time, the smaller count wins. */
const TIE = 0.03

/** The thread counts worth measuring here, smallest first. */
export function threadCandidates(p: Pick<CpuProfile, 'logical' | 'physical'>): number[] {
  const set = new Set<number>()
  if (p.physical !== null) set.add(Math.max(1, p.physical))
  // Windows does not say (physical null): half the hardware threads, for SMT machines, and all.
  else if (p.logical >= 4) set.add(Math.floor(p.logical / 2))
  set.add(Math.max(1, p.logical))
  return [...set].sort((a, b) => a - b)
}

/** The fastest count of measured times, a near-tie going to the smaller count. */
export function fastest(runMs: Record<string, number>): number {
  const entries = Object.entries(runMs)
    .map(([k, v]) => [Number(k), v] as const)
    .sort((a, b) => a[0] - b[0])
  let best = entries[0]!
  for (const e of entries.slice(1)) if (e[1] < best[1] * (1 - TIE)) best = e
  return best[0]
}

export class TuningRecords {
  private readonly dir: string

  constructor(cacheDir: string) {
    this.dir = join(cacheDir, 'tuning')
  }

  get(model: string, fingerprint: string): ThreadChoice | null {
    try {
      const r = JSON.parse(readFileSync(this.path(model, fingerprint), 'utf8')) as ThreadChoice
      return Number.isInteger(r.threads) && r.threads > 0 ? r : null
    } catch {
      return null
    }
  }

  /** Saves a choice; a cache folder that cannot be written only means measuring again next time. */
  set(model: string, fingerprint: string, choice: ThreadChoice): void {
    try {
      mkdirSync(this.dir, { recursive: true })
      const path = this.path(model, fingerprint)
      writeFileSync(`${path}.tmp`, JSON.stringify(choice))
      renameSync(`${path}.tmp`, path)
    } catch {
      // not saved
    }
  }

  private path(model: string, fingerprint: string): string {
    let name = ''
    for (const ch of model) name += /[A-Za-z0-9._]/.test(ch) ? ch : '_'
    return join(this.dir, `${name}-${fingerprint}.json`)
  }
}

/**
 * The thread count for a session: the caller's, a remembered choice, the only candidate, or
 * the fastest of `measure` (ms per run for a count) over the candidates.
 */
export async function chooseThreads(
  profile: CpuProfile,
  model: string,
  records: TuningRecords | null,
  given: number | undefined,
  measure: (threads: number) => Promise<number>
): Promise<ThreadChoice> {
  if (given !== undefined) return { threads: given, chosenBy: 'setting', runMs: null, measuredAt: null }
  const known = records?.get(model, profile.fingerprint)
  if (known) return known
  const candidates = threadCandidates(profile)
  let choice: ThreadChoice
  if (candidates.length === 1) {
    choice = { threads: candidates[0]!, chosenBy: 'only-choice', runMs: null, measuredAt: null }
  } else {
    const runMs: Record<string, number> = {}
    for (const t of candidates) runMs[t] = Math.round(await measure(t))
    choice = { threads: fastest(runMs), chosenBy: 'measured', runMs, measuredAt: new Date().toISOString() }
  }
  records?.set(model, profile.fingerprint, choice)
  return choice
}
