/**
 * Helpers for the watched-folder tests: a cheap `WatchProcessor` (a function instead of the
 * model, results written to real files), tiny distinct images made in code, and waiting on
 * a condition (never on a time).
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import sharp from 'sharp'
import type { WatchOutcome, WatchProcessor, WatchSubmission } from '../../src/main/watch/processor'
import { contentHash } from '../../src/main/watch/filter'

export interface FakeResult {
  variation: string
  ext: string
  bytes: Buffer
}

type FakeJob = {
  id: string
  filename: string
  hash: string
  request: WatchSubmission['request']
  outcome: WatchOutcome
  bytes: Buffer
}

/**
 * Runs "jobs" in-process: `process` turns the input into results (by default the input bytes
 * themselves, as variation `clipping`, ext `png`). `hold` keeps jobs pending until released, as
 * a long queue would; `fail` decides a job's failure. Survives service restarts (it plays the
 * durable engine).
 */
export class FakeProcessor implements WatchProcessor {
  maxBytes = 50 * 1024 * 1024
  readonly jobs = new Map<string, FakeJob>()
  readonly submissions: Array<{ filename: string; hash: string; jobId: string }> = []
  hold = false
  fail: ((job: FakeJob) => { code: string; message: string } | null) | null = null
  process: (bytes: Buffer) => Promise<FakeResult[]> = async (bytes) => [{ variation: 'clipping', ext: 'png', bytes }]
  private readonly listeners = new Set<(jobId: string) => void>()
  private readonly resultsDir: string

  constructor(resultsDir: string) {
    this.resultsDir = resultsDir
    mkdirSync(resultsDir, { recursive: true })
  }

  async submit({ request, bytes, filename }: WatchSubmission) {
    const id = randomUUID()
    const job: FakeJob = { id, filename, hash: contentHash(bytes), request, outcome: { state: 'pending' }, bytes }
    this.jobs.set(id, job)
    this.submissions.push({ filename, hash: job.hash, jobId: id })
    if (!this.hold) setImmediate(() => void this.run(job))
    return { ok: true as const, jobId: id }
  }

  /** Lets held jobs run. */
  release(): void {
    this.hold = false
    for (const job of this.jobs.values()) if (job.outcome.state === 'pending') setImmediate(() => void this.run(job))
  }

  private async run(job: FakeJob): Promise<void> {
    if (job.outcome.state !== 'pending') return
    const failure = this.fail?.(job) ?? null
    if (failure) {
      job.outcome = { state: 'failed', ...failure }
    } else {
      const made = await this.process(job.bytes)
      const dir = join(this.resultsDir, job.id)
      mkdirSync(dir, { recursive: true })
      const results = made.map((r, i) => {
        const path = join(dir, `${i}.bin`)
        writeFileSync(path, r.bytes)
        return { variation: r.variation, ext: r.ext, path }
      })
      job.outcome = { state: 'done', results, warnings: [] }
    }
    for (const l of this.listeners) l(job.id)
  }

  outcome(jobId: string): WatchOutcome {
    return this.jobs.get(jobId)?.outcome ?? { state: 'missing' }
  }

  findSubmitted(filename: string): string | null {
    return [...this.jobs.values()].find((j) => j.filename === filename)?.id ?? null
  }

  cancel(jobId: string): void {
    const job = this.jobs.get(jobId)
    if (job && job.outcome.state === 'pending') {
      job.outcome = { state: 'failed', code: 'cancelled', message: 'cancelled' }
      for (const l of this.listeners) l(jobId)
    }
  }

  onJobChange(listener: (jobId: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** How many submissions carried these bytes. */
  submittedTimes(bytes: Buffer): number {
    const h = contentHash(bytes)
    return this.submissions.filter((s) => s.hash === h).length
  }
}

/** A tiny PNG of one colour; `n` picks a distinct colour (distinct bytes) for up to 16M images. */
export async function tinyImage(n: number, format: 'png' | 'jpeg' = 'png', size = 16): Promise<Buffer> {
  const background = { r: n & 0xff, g: (n >> 8) & 0xff, b: (n >> 16) & 0xff }
  const img = sharp({ create: { width: size, height: size, channels: 3, background } })
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer()
}

/** Every file under `dir`, '/'-separated and sorted (hidden ones included: temp files must not remain). */
export function filesUnder(dir: string): string[] {
  let entries: string[]
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  } catch {
    return []
  }
  const out: string[] = []
  for (const e of entries) {
    const full = join(dir, e)
    try {
      if (readdirSync(full).length >= 0) continue // a folder
    } catch {
      out.push(relative(dir, full).split(sep).join('/'))
    }
  }
  return out.sort()
}

export { waitFor } from './wait'
