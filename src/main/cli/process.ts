import { mkdir, readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { SingleBar, Presets } from 'cli-progress'
import type { JobStatusBody } from '../../shared/api'
import { resultsToWrite, writesAllVariations } from '../../shared/outputs'
import { templateProblem } from '../../shared/watch'
import { Engine } from '../engine/engine'
import { primaryVariation } from '../engine/status-view'
import { dateToken, presetToken } from '../watch/template'
import { CliError, parse } from './args'
import { collectInputs, type InputFile } from './inputs'
import { ProcessLedger, settingsKey } from './process-ledger'
import { chooseNames, defaultTemplate, writeOutputs } from './process-outputs'
import { writeReport, type ProcessReport } from './process-report'

const ENDED = new Set(['done', 'failed', 'cancelled'])

/**
 * `clipdesk process`: the main job without a server. Runs the same engine in-process over
 * files and folders and writes each photo's result into --out (the primary variation, or all
 * with --all-variations), with a progress bar. Photos already done with the same settings
 * are skipped (--overwrite to redo them), so a stopped run continues when run again; failures
 * never stop the run and are listed in clipdesk-report.json / .txt beside the outputs.
 */
export async function runProcess(args: string[]): Promise<number> {
  const { values, positionals, dataDir } = parse(args, {
    out: { type: 'string' },
    mode: { type: 'string', default: 'clipping' },
    params: { type: 'string' },
    format: { type: 'string', default: 'png' },
    template: { type: 'string' },
    'all-variations': { type: 'boolean', default: false },
    overwrite: { type: 'boolean', default: false }
  })
  if (!values.out) throw new CliError('missing --out <dir>')
  if (positionals.length === 0) throw new CliError('name at least one file or folder to process')
  const template = values.template as string | undefined
  const problem = template === undefined ? null : templateProblem(template)
  if (problem) throw new CliError(`--template: ${problem}`)
  const outDir = resolve(values.out as string)
  const { images, notImages } = await collectInputs(positionals)
  if (images.length === 0) throw new CliError('no images found in the given files and folders')
  const mode = values.mode as string
  const params = (values.params as string | undefined) ?? null
  const all = writesAllVariations(params, values['all-variations'] as boolean)
  const settings = { mode, format: values.format as string, params, all_variations: all, template: template ?? null }
  const key = settingsKey(settings)

  await mkdir(outDir, { recursive: true })
  const ledger = new ProcessLedger(outDir)
  const todo: Array<{ input: InputFile; size: number; mtimeMs: number }> = []
  let skipped = 0
  for (const input of images) {
    const info = await stat(input.path)
    if (!values.overwrite && ledger.isDone(input.path, key, info.size, info.mtimeMs)) skipped++
    else todo.push({ input, size: info.size, mtimeMs: info.mtimeMs })
  }
  if (skipped > 0) console.log(`${skipped} of ${images.length} images already done with these settings: skipped (--overwrite to redo them)`)

  const report: ProcessReport = {
    started_at: new Date().toISOString(),
    finished_at: '',
    settings,
    counts: { inputs: images.length, done: 0, skipped, failed: 0, not_images: notImages.length, files_written: 0 },
    failed: [],
    not_images: notImages,
    warnings: []
  }
  const fail = (input: InputFile, reason: string): void => {
    report.failed.push({ input: input.path, reason })
  }

  const engine = new Engine({ dataDir })
  const waiters = new Map<string, () => void>()
  const ended = (id: string): boolean => {
    const job = engine.jobs.get(id)
    return !job || ENDED.has(job.status)
  }
  engine.on('job', (e) => {
    const wake = waiters.get(e.job_id)
    if (wake && ended(e.job_id)) {
      waiters.delete(e.job_id)
      wake()
    }
  })
  const jobEnd = (id: string): Promise<void> =>
    new Promise((done) => {
      if (ended(id)) done()
      else waiters.set(id, done)
    })

  let stopping = false
  const interrupt = (): void => {
    stopping = true
    for (const id of waiters.keys()) engine.cancel(id)
  }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  const taken = ledger.allClaimed()
  const tokens = { date: dateToken(new Date()), preset: presetToken(mode, params) }
  let naming: Promise<unknown> = Promise.resolve()

  const one = async ({ input, size, mtimeMs }: (typeof todo)[number]): Promise<void> => {
    const bytes = await readFile(input.path).catch((err: Error) => err)
    if (bytes instanceof Error) return fail(input, `cannot be read: ${bytes.message}`)
    const res = await engine.upload({
      fields: { mode, output_format: values.format, ...(params !== null ? { params } : {}) },
      file: { bytes, mimeType: null, filename: input.path },
      keyId: null
    })
    if (res.status !== 202 || !('job_id' in res.body)) {
      const e = 'error' in res.body ? res.body.error : null
      return fail(input, `${e?.message ?? 'refused'}${e?.details ? ' (' + e.details.map((d) => `${d.field}: ${d.issue}`).join('; ') + ')' : ''}`)
    }
    const id = res.body.job_id
    await jobEnd(id)
    const job = engine.jobs.get(id)
    const body = engine.status(id, () => '').body as JobStatusBody
    if (!job || job.status !== 'done') return fail(input, body.error?.message ?? job?.status ?? 'the job is gone')
    const made = engine.jobs.results(id)
    const chosen = resultsToWrite(made, primaryVariation(job, made.map((r) => r.variation), engine.jobParams.get(id)?.primary), all)
    // Names are chosen one photo at a time, so two photos never take the same free name.
    const step = naming.then(async () => {
      const names = chooseNames(outDir, input.outStem, chosen, template ?? defaultTemplate(chosen.length > 1), tokens, ledger.claimed(input.path), taken)
      for (const n of names) taken.add(n)
      return writeOutputs(outDir, ledger, { input: input.path, settings: key, size, mtimeMs }, chosen, names)
    })
    naming = step.catch(() => undefined)
    const written = await step.catch((err: Error) => err)
    if (written instanceof Error) return fail(input, `the result could not be written: ${written.message}`)
    report.counts.done++
    report.counts.files_written += written.length
    for (const w of Object.values(body.warnings ?? {}).flat()) report.warnings.push({ input: input.path, warning: w })
  }

  const bar = new SingleBar(
    { format: '{bar} {percentage}% | {value}/{total} images | {eta_formatted} left | {file}', hideCursor: true, etaBuffer: 20 },
    Presets.shades_classic
  )
  const started = Date.now()
  try {
    engine.start()
    // The model loads while the first photos are read, probed and decoded, not after.
    engine.warmUp().catch(() => undefined)
    bar.start(todo.length, 0, { file: '' })
    // A few photos handed to the engine at a time: a stop leaves little queued behind.
    let next = 0
    const worker = async (): Promise<void> => {
      while (!stopping && next < todo.length) {
        const item = todo[next++]!
        await one(item).catch((err: Error) => fail(item.input, err.message))
        bar.increment({ file: item.input.outStem })
      }
    }
    await Promise.all(Array.from({ length: Math.max(2, 2 * engine.options.concurrency) }, worker))
  } finally {
    bar.stop()
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
    await engine.stop()
  }
  report.counts.failed = report.failed.length
  report.finished_at = new Date().toISOString()
  const reportFile = await writeReport(outDir, report)
  for (const f of report.failed) console.error(`${f.input}: ${f.reason}`)
  for (const w of report.warnings) console.error(`${w.input}: warning: ${w.warning}`)
  const seconds = (Date.now() - started) / 1000
  const c = report.counts
  console.log(
    `${c.done} of ${todo.length} images done in ${seconds.toFixed(1)} s${todo.length > 0 ? ` (${(seconds / todo.length).toFixed(2)} s per image)` : ''}; ` +
      `${skipped} skipped (already done); ${c.files_written} files written to ${outDir}`
  )
  if (c.failed > 0 || c.not_images > 0) console.log(`${c.failed} failed, ${c.not_images} other files not processed: see ${reportFile}`)
  return c.failed > 0 || stopping ? 1 : 0
}
