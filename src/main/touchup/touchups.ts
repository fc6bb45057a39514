/**
 * Touch-up of a done file (docs/touch-up.md "Touch-up"), whichever feature made it: the editor's
 * preview, and Save, which runs the file's stored input again through the engine with the
 * feature's own request and the strokes as a hint (the model's mask comes from the mask cache),
 * then replaces every output of the file in its destination with the new version, keeping the
 * previous one beside it (`outputs/previous.ts`), and lets the feature record it.
 *
 * What differs between a batch's item and a watched folder's file is said by the feature's
 * `TouchUpFile` (`batches/touchup-file.ts`, `watch/touchup-file.ts`); everything else is here.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { type ErrorCode, errorText } from '../../shared/errors'
import type { RegionBox } from '../../shared/regions'
import type { TouchUpPreview, TouchUpResult, TouchUpTarget } from '../../shared/touchup'
import type { TouchUpPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { type HintPreviews, type PreviewSource, contentHash } from '../engine/public'
import { JobEnds, jobOutcome, submitFile, type JobRequest } from '../outputs/engine-jobs'
import { ContainmentError } from '../outputs/contained-dir'
import { replaceKeepingPrevious } from '../outputs/previous'

/** One done file as its feature describes it for a touch-up. */
export interface TouchUpFile {
  /** Names the file among all features' (one Save at a time per file). */
  key: string
  /** The job whose results are in the destination now. */
  jobId: string
  /**
   * The file the job was made from, used when the job's stored input was swept; `sha256`: its
   * content then must still be that (a watched file may have changed since).
   */
  source: { path: string; sha256?: string } | null
  /** The name the new job is submitted under. */
  filename: string
  /** The request the file was made with (mode, format, parameter set). */
  request: JobRequest
  /** Whether every variation of the job is written, or the primary alone (`shared/outputs.ts`). */
  allVariations: boolean
  /** The file's outputs in the destination (absolute), in the order the job's results are written. */
  outputs: string[]
  /** The folder the writes are contained in (no symbolic link out of it is followed). */
  root: string
  /** True while the file is still as it was when resolved (not retried, removed, replaced or touched up meanwhile). */
  unchanged(): boolean
  /** Records the touch-up once its files are in place; returns how many times the file was touched up. */
  record(done: { jobId: string; warnings: string[]; previous: string[] }): number
}

/** Each feature's resolver: the done file a target names, or an EngineError (404 unknown, 409 not done). */
export type TouchUpResolvers = { [K in TouchUpTarget['kind']]: ((target: Extract<TouchUpTarget, { kind: K }>) => TouchUpFile) | null }

const gone = (): EngineError =>
  new EngineError('not_found', 'The original of this file is no longer kept; process it again to touch it up.')

export class TouchUps {
  private readonly previews: HintPreviews
  /** Files whose Save is under way (by `TouchUpFile.key`). */
  private readonly saving = new Set<string>()

  constructor(
    private readonly engine: TouchUpPort,
    private readonly resolvers: TouchUpResolvers
  ) {
    this.previews = engine.hintPreviews()
  }

  /** The cutout of a done file with `hint` (at the preview's size), or without strokes; `regions`: look-again boxes. */
  async preview(target: TouchUpTarget, hint: Buffer | null, regions: readonly RegionBox[] = []): Promise<TouchUpPreview> {
    const file = this.resolve(target)
    const job = this.engine.job(file.jobId)
    const params = this.engine.jobParamSet(file.jobId)
    const inputPath = job && params ? await this.inputPath(file) : null
    if (!job || !params || !inputPath) throw gone()
    const source: PreviewSource = { key: job.id, inputPath, model: job.model ?? this.engine.defaultModel(), params }
    return refusingHint(() => this.previews.preview(source, hint, regions))
  }

  /** Save: the strokes (at the input's upright size) applied by a new job, its results in place of the file's outputs. */
  async save(target: TouchUpTarget, hint: Buffer, regions: readonly RegionBox[] = []): Promise<TouchUpResult> {
    const file = this.resolve(target)
    if (this.saving.has(file.key)) throw new EngineError('conflict', 'This file is being touched up already; wait for it to finish.')
    this.saving.add(file.key)
    try {
      return await this.run(file, hint, regions)
    } finally {
      this.saving.delete(file.key)
    }
  }

  private resolve(target: TouchUpTarget): TouchUpFile {
    const resolver = this.resolvers[target.kind] as ((t: TouchUpTarget) => TouchUpFile) | null
    if (!resolver) throw new EngineError('unavailable', 'This kind of file cannot be touched up in this process.')
    return resolver(target)
  }

  private async run(file: TouchUpFile, hint: Buffer, regions: readonly RegionBox[]): Promise<TouchUpResult> {
    const { engine } = this
    const inputPath = await this.inputPath(file)
    const bytes = inputPath ? await readFile(inputPath).catch(() => null) : null
    if (!bytes) throw gone()
    const submitted = await submitFile(engine, file.request, { bytes, filename: file.filename, hint, regions })
    if (!submitted.ok) throw new EngineError(submitted.code as ErrorCode, submitted.message, { details: submitted.details })
    const ends = new JobEnds(engine)
    try {
      await ends.wait(submitted.jobId)
    } finally {
      ends.close()
    }
    const outcome = jobOutcome(engine, submitted.jobId, file.allVariations)
    if (outcome.state !== 'done') {
      const why = outcome.state === 'failed' ? outcome.message : 'the job is gone'
      throw new EngineError('job_failed', `The touch-up could not be made: ${why}`)
    }
    // Another Save, a retry, a new version or a delete may have changed the file while the job ran.
    if (!file.unchanged()) throw new EngineError('conflict', 'The file changed while it was touched up; open it again.')
    let previous: string[]
    try {
      previous = await replaceKeepingPrevious(
        outcome.results.map((r) => r.path),
        file.outputs,
        file.root
      )
    } catch (err) {
      // A link, FIFO or device at an output name, or the folder swapped for a link: not ours to
      // touch, refused before any byte is written (outputs/previous.ts).
      if (err instanceof ContainmentError) throw new EngineError('conflict', `The touched-up file was not written: ${err.message}`)
      throw new EngineError('internal_error', `The touched-up file could not be written into the destination: ${errorText(err)}`)
    }
    const touchUps = file.record({ jobId: submitted.jobId, warnings: outcome.warnings, previous })
    return { outputs: file.outputs, previous, touch_ups: touchUps }
  }

  /** The stored input of the file's job, else the file it was made from (still the same content); null when neither is there. */
  private async inputPath(file: TouchUpFile): Promise<string | null> {
    const stored = this.engine.job(file.jobId)?.inputPath
    if (stored && existsSync(stored)) return stored
    const source = file.source
    if (!source || !existsSync(source.path)) return null
    if (source.sha256 === undefined) return source.path
    const bytes = await readFile(source.path).catch(() => null)
    return bytes && contentHash(bytes) === source.sha256 ? source.path : null
  }
}

/** A hint the sandbox refuses (not an image, the wrong size) is the caller's: 422 naming `hint`. */
async function refusingHint<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof EngineError) throw err
    const reason = (err as { reason?: string }).reason
    if (reason === 'unsupported_image')
      throw new EngineError('validation_failed', 'The hint cannot be used.', { details: [{ field: 'hint', issue: errorText(err) }] })
    throw err
  }
}
