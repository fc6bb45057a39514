import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { batchOutcome } from '../../shared/batches'
import { explainProblem } from '../../shared/explain'
import { dateToken, DEFAULT_TEMPLATES, MIRRORS_FOLDER_NAME, outputNames } from '../../shared/names'
import { writesAllVariations } from '../../shared/outputs'
import { countOf, countsLine } from '../../shared/vocabulary'
import { checkDestination, DestinationProblem, estimateOutputBytes } from '../outputs/destination'
import { expandInput, type InputFile } from '../outputs/inputs'
import type { JobOutcome, JobRequest } from '../outputs/engine-jobs'
import { relativeName, resolveInside } from '../outputs/paths'
import {
  reportCutouts,
  type ReportCheck,
  storeCheckEntries,
  storeCheckLines,
  toCheckSummary,
  writeRunReport,
  type RunReport
} from '../outputs/report'
import type { RuleSet } from '../../shared/store-rules'
import { findRuleSet, RuleSetProblem } from '../store-ready/rule-sets'
import { sweepTempFiles } from '../outputs/temp-sweep'
import { writeOutputs } from '../outputs/write'
import { CliError, parse } from './args'
import { complain, say } from './print'
import { ProcessLedger, settingsKey } from './process-ledger'
import { checkProcessOptions } from './process-options'
import { inLanes } from '../../shared/lanes'
import type { SecondLook } from '../../shared/params-types'
import { ProcessProgress } from './process-progress'
import { folderOwner, ownerBackend } from './owner-client'
import { localBackend, type ProcessBackend } from './process-backend'

interface ProcessReport extends RunReport {
  checks: ReportCheck[]
  counts: {
    inputs: number
    done: number
    skipped: number
    failed: number
    /** Stopped (Ctrl-C) while the engine was working on them. */
    stopped: number
    /** Not started when the run was stopped. */
    not_started: number
    not_images: number
    files_written: number
    /** Of `done`: cutouts whose uncertainty score puts them at a review level (docs/review.md). */
    to_check: number
    /** Of `to_check`: those at "Likely wrong". */
    likely_wrong: number
    /** Of `done`: files a store check found not ready (docs/store-ready.md). */
    not_ready: number
  }
}

interface Todo {
  input: InputFile
  /** Its number among the command's inputs (`{n}`), from 1: the same on a continued run. */
  seq: number
  size: number
  mtimeMs: number
}

/** Files and folders → the images to process (a folder's files relative to it) and the other files of the folders. */
async function collect(paths: string[]): Promise<{ images: InputFile[]; notImages: string[] }> {
  const images: InputFile[] = []
  const notImages: string[] = []
  for (const path of paths) {
    // A folder's files at the top of --out (`day1/a.jpg`), not under its name (MIRRORS_FOLDER_NAME, docs/names.md).
    const found = await expandInput(path, MIRRORS_FOLDER_NAME.process ? basename(path) : '').catch((err: Error) => {
      throw new CliError(err.message)
    })
    for (const f of found) f.notImage ? notImages.push(f.path) : images.push(f)
  }
  return { images, notImages }
}

/**
 * `clipdesk process`: the main job without a server. Runs the same engine in-process over
 * files and folders (or, when a server owns the data folder, has that server do the work as
 * its client: `owner-client.ts`) and writes each photo's result into --out (the primary variation, or all
 * with --all-variations), with a progress bar. Every option, and --out itself, is checked
 * before a photo is read (`process-options.ts`, `outputs/destination.ts`). Photos already done
 * with the same settings are skipped (--overwrite to redo them), so a stopped run continues
 * when run again; Ctrl-C says what was done, stopped and not started. Failures never stop
 * the run and are listed in clipdesk-report.json / .txt beside the outputs, in plain words.
 * The writing itself is the one all features share (`../outputs/`).
 */
export async function runProcess(args: string[]): Promise<number> {
  const { values, positionals, dataDir } = parse(args, {
    out: { type: 'string' },
    mode: { type: 'string' }, // none given: params when --params is, else clipping (checkProcessOptions)
    params: { type: 'string' },
    'second-look': { type: 'string' },
    format: { type: 'string' }, // none given: the set's format (a store preset's), else png (checkProcessOptions)
    check: { type: 'string', multiple: true },
    template: { type: 'string' },
    'all-variations': { type: 'boolean', default: false },
    overwrite: { type: 'boolean', default: false }
  })
  // The rule sets of --check, found (and a bad one refused) before anything starts.
  const checks = ((values.check as string[] | undefined) ?? []).map((name) => {
    try {
      return findRuleSet(name, dataDir)
    } catch (err) {
      throw err instanceof RuleSetProblem ? new CliError(`--check: ${err.message}`) : err
    }
  })
  // A server owning the folder does the work (never a second writer on its database); else
  // this command runs its own engine (`process-backend.ts`, `owner-client.ts`).
  const owner = folderOwner(dataDir)
  const backend = owner ? ownerBackend(dataDir, owner) : localBackend(dataDir)
  try {
    const options = checkProcessOptions(values, positionals, backend.presets)
    if (owner) say(`Using the Clipdesk server running on this data folder (pid ${owner.note.pid})`)
    if (options.formatWarning) complain(`warning: ${options.formatWarning}`)
    return await run(backend, options, checks)
  } finally {
    await backend.close()
  }
}

async function run(backend: ProcessBackend, o: ReturnType<typeof checkProcessOptions>, extraChecks: RuleSet[]): Promise<number> {
  const { images, notImages } = await collect(o.inputs)
  if (images.length === 0) throw new CliError('no images found in the given files and folders')
  const request: JobRequest = { mode: o.mode, output_format: o.format, params: o.params }
  const all = writesAllVariations(request.params, o.allVariations)
  const settings = { mode: request.mode, format: request.output_format, params: request.params, all_variations: all, template: o.template }
  const key = settingsKey(settings)

  // Sizes only (no photo is read yet): for the space the output needs, and the resume record.
  const sized: Todo[] = []
  for (const [i, input] of images.entries()) {
    const info = await stat(input.path).catch(() => null)
    sized.push({ input, seq: i + 1, size: info?.size ?? 0, mtimeMs: info?.mtimeMs ?? 0 })
  }
  const outDir = await checkDestination(o.outDir, { estimatedBytes: estimateOutputBytes(sized.reduce((n, t) => n + t.size, 0)) }).catch(
    (err: unknown) => {
      throw err instanceof DestinationProblem ? new CliError(`--out: ${err.message}`) : err
    }
  )
  // A run killed mid-copy before this one left its temp files: gone before anything is written.
  await sweepTempFiles(outDir)
  const ledger = new ProcessLedger(outDir)
  // Photos done by an earlier part of this run (the same command, stopped and run again): skipped,
  // and reported from their ledger lines, so that the report covers every photo of the run.
  const before = o.overwrite ? [] : sized.flatMap((t) => ledger.doneEntry(t.input.path, key, t.size, t.mtimeMs) ?? [])
  const doneBefore = new Set(before.map((e) => e.input))
  const todo = sized.filter((t) => !doneBefore.has(t.input.path))
  const skipped = sized.length - todo.length
  if (skipped > 0) say(`${skipped} of ${images.length} images already done with these settings: skipped (--overwrite to redo them)`)

  const report: ProcessReport = {
    started_at: new Date().toISOString(),
    finished_at: '',
    outcome: '',
    settings,
    counts: {
      inputs: images.length,
      done: 0,
      skipped,
      failed: 0,
      stopped: 0,
      not_started: 0,
      not_images: notImages.length,
      files_written: 0,
      to_check: 0,
      likely_wrong: 0,
      not_ready: 0
    },
    failed: [],
    not_images: notImages,
    warnings: [],
    cutouts: [],
    checks: []
  }
  const scored: Array<{ input: string; uncertainty: number | null; secondLook?: SecondLook | null }> = before.map((e) => ({
    input: e.input,
    uncertainty: e.uncertainty ?? null,
    secondLook: e.secondLook ?? null
  }))
  for (const e of before) for (const warning of e.warnings ?? []) report.warnings.push({ input: e.input, warning })
  const fail = (input: InputFile, raw: string): void => {
    const { message, detail } = explainProblem(raw)
    report.failed.push({ input: input.path, reason: message, ...(detail ? { details: detail } : {}) })
  }

  let stopping = false
  const interrupt = (): void => {
    stopping = true
    backend.cancelWaiting()
  }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  const date = dateToken(new Date())

  /** One photo, to its end: 'stopped' when Ctrl-C stopped it (not progress, not a failure), else written or failed. */
  const one = async (todo: Todo): Promise<'stopped' | void> => {
    const { input } = todo
    const bytes = await readFile(input.path).catch((err: Error) => err)
    if (bytes instanceof Error) return fail(input, `The file cannot be read: ${bytes.message}`)
    const submitted = await backend.submit(request, { bytes, filename: input.path })
    if (!submitted.ok) {
      // The owner gone: not this photo's failure; the run stops and the next one does it.
      if (!backend.lost()) return fail(input, submitted.message)
      interrupt()
      report.counts.stopped++
      return 'stopped'
    }
    try {
      return await written(todo, submitted.jobId, await backend.outcome(submitted.jobId, all))
    } finally {
      await backend.finished(submitted.jobId)
    }
  }

  /** A job's end: its files written and recorded, or why not. */
  const written = async ({ input, seq, size, mtimeMs }: Todo, jobId: string, outcome: JobOutcome): Promise<'stopped' | void> => {
    if (backend.lost() && !stopping) interrupt()
    if (outcome.state === 'failed' && outcome.code === 'cancelled' && stopping) {
      report.counts.stopped++ // stopped by Ctrl-C: not a failure, the next run does it
      return 'stopped'
    }
    if (outcome.state !== 'done') return fail(input, outcome.state === 'failed' ? outcome.message : 'the job is gone')
    const naming = {
      relPath: input.relPath,
      template: o.template ?? DEFAULT_TEMPLATES.process,
      mode: request.mode,
      params: request.params,
      date,
      seq
    }
    const files = outputNames(naming, outcome.results).map((name, i) => ({
      from: outcome.results[i]!.path,
      target: resolveInside(outDir, name)
    }))
    const version = { input: input.path, settings: key, size, mtimeMs }
    const written = await writeOutputs(files, outDir, ledger.resumeRecord(version)).catch((err: Error) => err)
    if (written instanceof Error) return fail(input, `The result could not be written: ${written.message}`)
    ledger.record({
      ...version,
      outputs: written.map((p) => relativeName(outDir, p)),
      state: 'done',
      uncertainty: outcome.uncertainty,
      ...(outcome.secondLook ? { secondLook: outcome.secondLook } : {}),
      warnings: outcome.warnings
    })
    report.counts.done++
    report.counts.files_written += written.length
    // The store its preset is named for (checked by the engine) and those of --check.
    const checks = written[0] ? await backend.checks(jobId, extraChecks, written[0]) : []
    if (checks.length > 0) report.checks.push(...storeCheckEntries(input.path, relativeName(outDir, written[0]!), checks))
    scored.push({ input: input.path, uncertainty: outcome.uncertainty, secondLook: outcome.secondLook })
    for (const warning of outcome.warnings) report.warnings.push({ input: input.path, warning })
  }

  const progress = new ProcessProgress(todo.length)
  let modelReady = false
  let photoRunning = false
  // "Loading the model…" until a photo is being worked on with the model ready; then the bar.
  const startBar = (): void => {
    if (modelReady && photoRunning && !stopping) progress.photoStarted()
  }
  let taken = 0
  const started = Date.now()
  try {
    if (todo.length > 0 && backend.loadsModel) progress.loading()
    backend.start(
      {
        modelReady: () => {
          modelReady = true
          startBar()
        },
        photoRunning: () => {
          if (photoRunning) return
          photoRunning = true
          startBar()
        }
      },
      todo.length
    )
    // A few photos handed to the engine at a time: a stop leaves little queued behind.
    const lanes = backend.lanes
    await inLanes(
      todo,
      lanes,
      async (item) => {
        const ended = await one(item).catch((err: Error) => fail(item.input, err.message))
        // Only a photo written or failed moves the bar; one stopped by Ctrl-C is not progress.
        if (ended !== 'stopped') progress.photoFinished(item.input.relPath)
      },
      { stop: () => stopping, taken: (n) => (taken = n) }
    )
  } finally {
    progress.close()
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
  }
  const c = report.counts
  c.failed = report.failed.length
  c.not_started = todo.length - taken
  report.cutouts = reportCutouts(scored)
  c.to_check = report.cutouts.filter((x) => x.to_check).length
  c.likely_wrong = report.cutouts.filter((x) => x.review === 'likely_wrong').length
  // Photos end in any order (several at a time): the report and the lines list them by file.
  report.checks.sort((a, b) => (a.input < b.input ? -1 : a.input > b.input ? 1 : 0))
  c.not_ready = new Set(report.checks.filter((x) => !x.passed).map((x) => x.input)).size
  // The run as a whole: a continued run's photos done before count as done ("Done: all 15 files").
  const outcome = batchOutcome({
    counts: {
      total: sized.length,
      waiting: 0,
      running: 0,
      done: c.done + skipped,
      failed: c.failed,
      cancelled: c.stopped + c.not_started,
      not_started: c.not_started,
      not_images: c.not_images,
      to_check: c.to_check,
      likely_wrong: c.likely_wrong,
      touched_up: 0,
      warnings: report.warnings.length
    },
    interrupted: false,
    progress: 100
  })
  report.outcome = todo.length === 0 ? `Nothing to do: all ${countOf(skipped, 'image')} done before` : outcome.title
  report.finished_at = new Date().toISOString()
  const summary =
    `${countOf(c.inputs, 'photo')}: ` +
    countsLine([
      [c.skipped, (n) => `${n} done before (skipped)`],
      [c.done, (n) => `${n} done${c.skipped > 0 ? ' now' : ''}`],
      [c.failed, (n) => `${n} failed`],
      [c.stopped, (n) => `${n} stopped while running`],
      [c.not_started, (n) => `${n} not started`]
    ]) +
    `; ${countOf(c.files_written, 'file')} written${c.skipped > 0 ? ' now' : ''}` +
    (c.not_images > 0 ? `; ${countOf(c.not_images, 'other file')} skipped (not ${c.not_images === 1 ? 'an image' : 'images'})` : '')
  const reportFile = await writeRunReport(outDir, report, 'clipdesk process', summary)
  complain(...report.failed.map((f) => `${f.input}: ${f.reason}`), ...report.warnings.map((w) => `${w.input}: warning: ${w.warning}`))

  // Rates over what ran: the photos done or failed, not those skipped, stopped or never started.
  const seconds = (Date.now() - started) / 1000
  const ran = c.done + c.failed
  const rate =
    ran > 0 ? `${countOf(ran, 'image')} in ${seconds.toFixed(1)} s (${(seconds / ran).toFixed(2)} s per image)` : `${seconds.toFixed(1)} s`
  const lost = backend.lost()
  if (lost) complain(`${lost}: this run stopped. Run the same command to continue.`)
  else if (stopping) say('Stopped. Run the same command to continue.')
  say(`${report.outcome}. ${rate}; ${c.skipped} skipped (already done); ${countOf(c.files_written, 'file')} written to ${outDir}`)
  if (c.to_check > 0) say(`${toCheckSummary(report.cutouts)}: see ${reportFile}`)
  for (const line of storeCheckLines(report.checks)) say(line)
  if (c.failed > 0 || c.not_images > 0) {
    say(
      `${countsLine([
        [c.failed, (n) => `${n} failed`],
        [c.not_images, (n) => `${countOf(n, 'other file')} skipped (not ${n === 1 ? 'an image' : 'images'})`]
      ])}: see ${reportFile}`
    )
  }
  return c.failed > 0 || stopping ? 1 : 0
}
