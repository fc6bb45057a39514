import { mkdir, readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { SingleBar, Presets } from 'cli-progress'
import type { Mode, OutputFormat } from '../../shared/api'
import { dateToken, outputNames, templateProblem } from '../../shared/names'
import { writesAllVariations } from '../../shared/outputs'
import { escapeControls } from '../../shared/text'
import { Engine } from '../engine/engine'
import { expandInput, type InputFile } from '../outputs/inputs'
import { JobEnds, jobOutcome, submitFile, type JobRequest } from '../outputs/engine-jobs'
import { relativeName, resolveInside } from '../outputs/paths'
import { writeRunReport, type RunReport } from '../outputs/report'
import { writeOutputs } from '../outputs/write'
import { CliError, parse } from './args'
import { complain, say } from './print'
import { ProcessLedger, settingsKey } from './process-ledger'

interface ProcessReport extends RunReport {
  counts: { inputs: number; done: number; skipped: number; failed: number; not_images: number; files_written: number }
}

interface Todo {
  input: InputFile
  size: number
  mtimeMs: number
}

/** Files and folders → the images to process (a folder's files relative to it) and the other files of the folders. */
async function collect(args: string[]): Promise<{ images: InputFile[]; notImages: string[] }> {
  const images: InputFile[] = []
  const notImages: string[] = []
  for (const arg of args) {
    for (const f of await expandInput(resolve(arg), '')) (f.notImage ? notImages.push(f.path) : images.push(f))
  }
  return { images, notImages }
}

/**
 * `clipdesk process`: the main job without a server. Runs the same engine in-process over
 * files and folders and writes each photo's result into --out (the primary variation, or all
 * with --all-variations), with a progress bar. Photos already done with the same settings
 * are skipped (--overwrite to redo them), so a stopped run continues when run again; failures
 * never stop the run and are listed in clipdesk-report.json / .txt beside the outputs.
 * The writing itself is the one all features share (`../outputs/`).
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
  const template = (values.template as string | undefined) ?? null
  const problem = template === null ? null : templateProblem(template)
  if (problem) throw new CliError(`--template: ${problem}`)
  const outDir = resolve(values.out as string)
  const { images, notImages } = await collect(positionals)
  if (images.length === 0) throw new CliError('no images found in the given files and folders')
  // Checked by the engine at the first upload (a 422 naming the field); typed here for the request.
  const request: JobRequest = { mode: values.mode as Mode, output_format: values.format as OutputFormat, params: (values.params as string | undefined) ?? null }
  const all = writesAllVariations(request.params, values['all-variations'] as boolean)
  const settings = { mode: request.mode, format: request.output_format, params: request.params, all_variations: all, template }
  const key = settingsKey(settings)

  await mkdir(outDir, { recursive: true })
  const ledger = new ProcessLedger(outDir)
  const todo: Todo[] = []
  let skipped = 0
  for (const input of images) {
    const info = await stat(input.path)
    if (!values.overwrite && ledger.isDone(input.path, key, info.size, info.mtimeMs)) skipped++
    else todo.push({ input, size: info.size, mtimeMs: info.mtimeMs })
  }
  if (skipped > 0) say(`${skipped} of ${images.length} images already done with these settings: skipped (--overwrite to redo them)`)

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

  const engine = new Engine({ dataDir, role: 'process' })
  const ends = new JobEnds(engine)
  let stopping = false
  const interrupt = (): void => {
    stopping = true
    for (const id of ends.waiting()) engine.cancel(id)
  }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  const date = dateToken(new Date())

  const one = async ({ input, size, mtimeMs }: Todo): Promise<void> => {
    const bytes = await readFile(input.path).catch((err: Error) => err)
    if (bytes instanceof Error) return fail(input, `cannot be read: ${bytes.message}`)
    const submitted = await submitFile(engine, request, { bytes, filename: input.path })
    if (!submitted.ok) return fail(input, submitted.message)
    await ends.wait(submitted.jobId)
    const outcome = jobOutcome(engine, submitted.jobId, all)
    if (outcome.state !== 'done') return fail(input, outcome.state === 'failed' ? outcome.message : 'the job is gone')
    const naming = { relPath: input.relPath, template, mode: request.mode, params: request.params, date }
    const files = outputNames(naming, outcome.results).map((name, i) => ({ from: outcome.results[i]!.path, target: resolveInside(outDir, name) }))
    const version = { input: input.path, settings: key, size, mtimeMs }
    const written = await writeOutputs(files, outDir, ledger.resumeRecord(version)).catch((err: Error) => err)
    if (written instanceof Error) return fail(input, `the result could not be written: ${written.message}`)
    ledger.record({ ...version, outputs: written.map((p) => relativeName(outDir, p)), state: 'done' })
    report.counts.done++
    report.counts.files_written += written.length
    for (const warning of outcome.warnings) report.warnings.push({ input: input.path, warning })
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
        bar.increment({ file: escapeControls(item.input.relPath) })
      }
    }
    await Promise.all(Array.from({ length: Math.max(2, 2 * engine.options.concurrency) }, worker))
  } finally {
    bar.stop()
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
    ends.close()
    await engine.stop()
  }
  const c = report.counts
  c.failed = report.failed.length
  report.finished_at = new Date().toISOString()
  const summary = `${c.inputs} images: ${c.done} done, ${c.skipped} skipped (already done), ${c.failed} failed; ${c.files_written} files written; ${c.not_images} other files not processed`
  const reportFile = await writeRunReport(outDir, report, 'clipdesk process', summary)
  complain(...report.failed.map((f) => `${f.input}: ${f.reason}`), ...report.warnings.map((w) => `${w.input}: warning: ${w.warning}`))
  const seconds = (Date.now() - started) / 1000
  say(
    `${c.done} of ${todo.length} images done in ${seconds.toFixed(1)} s${todo.length > 0 ? ` (${(seconds / todo.length).toFixed(2)} s per image)` : ''}; ` +
      `${skipped} skipped (already done); ${c.files_written} files written to ${outDir}`
  )
  if (c.failed > 0 || c.not_images > 0) say(`${c.failed} failed, ${c.not_images} other files not processed: see ${reportFile}`)
  return c.failed > 0 || stopping ? 1 : 0
}
