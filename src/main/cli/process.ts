import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { SingleBar, Presets } from 'cli-progress'
import type { JobStatusBody } from '../../shared/api'
import { Engine } from '../engine/engine'
import { CliError, parse } from './args'
import { collectInputs, type InputFile } from './inputs'

/**
 * `clipdesk process`: the main job without a server. Runs the same engine in-process over
 * files and folders and copies each result into --out, with a progress bar.
 */
export async function runProcess(args: string[]): Promise<number> {
  const { values, positionals, dataDir } = parse(args, {
    out: { type: 'string' },
    mode: { type: 'string', default: 'clipping' },
    params: { type: 'string' },
    format: { type: 'string', default: 'png' }
  })
  if (!values.out) throw new CliError('missing --out <dir>')
  if (positionals.length === 0) throw new CliError('name at least one file or folder to process')
  const outDir = resolve(values.out as string)
  const inputs = await collectInputs(positionals)
  if (inputs.length === 0) throw new CliError('no images found in the given files and folders')

  const engine = new Engine({ dataDir })
  const pending = new Map<string, InputFile>()
  const failures: string[] = []
  let written = 0
  const bar = new SingleBar(
    { format: '{bar} {percentage}% | {value}/{total} images | {eta_formatted} left | {file}', hideCursor: true, etaBuffer: 20 },
    Presets.shades_classic
  )
  const interrupt = (): void => {
    for (const id of pending.keys()) engine.cancel(id)
  }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  const started = Date.now()
  try {
    engine.start()
    bar.start(inputs.length, 0, { file: '' })
    const finished = new Promise<void>((resolveAll) => {
      const settle = async (id: string): Promise<void> => {
        const input = pending.get(id)
        if (!input) return
        const { body } = engine.status(id, () => '')
        if ((body as JobStatusBody).state === 'pending') return
        pending.delete(id)
        const job = body as JobStatusBody
        if (job.status === 'done') {
          const results = engine.jobs.results(id)
          for (const r of results) {
            const target = join(outDir, results.length > 1 ? `${input.outStem}.${r.variation}.${r.ext}` : `${input.outStem}.${r.ext}`)
            await mkdir(dirname(target), { recursive: true })
            await copyFile(r.path, target)
            written++
          }
          const warnings = Object.values(job.warnings ?? {}).flat()
          for (const w of warnings) failures.push(`${input.path}: warning: ${w}`)
        } else {
          failures.push(`${input.path}: ${job.error?.message ?? job.status}`)
        }
        bar.increment({ file: input.outStem })
        if (pending.size === 0 && submitted) resolveAll()
      }
      let submitted = false
      engine.on('job', (e) => void settle(e.job_id))
      void (async () => {
        for (const input of inputs) {
          const bytes = await readFile(input.path)
          const res = await engine.upload({
            fields: { mode: values.mode, output_format: values.format, ...(values.params ? { params: values.params } : {}) },
            file: { bytes, mimeType: null, filename: input.path },
            keyId: null
          })
          if (res.status === 202 && 'job_id' in res.body) {
            pending.set(res.body.job_id, input)
          } else {
            const e = 'error' in res.body ? res.body.error : null
            failures.push(`${input.path}: ${e?.message ?? 'refused'}${e?.details ? ' (' + e.details.map((d) => `${d.field}: ${d.issue}`).join('; ') + ')' : ''}`)
            bar.increment({ file: input.outStem })
          }
        }
        submitted = true
        if (pending.size === 0) resolveAll()
        else for (const id of [...pending.keys()]) void settle(id)
      })()
    })
    await finished
  } finally {
    bar.stop()
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
    await engine.stop()
  }
  for (const line of failures) console.error(line)
  const seconds = (Date.now() - started) / 1000
  const failed = failures.filter((l) => !l.includes(': warning: ')).length
  console.log(`${inputs.length - failed} of ${inputs.length} images done in ${seconds.toFixed(1)} s (${(seconds / inputs.length).toFixed(2)} s per image); ${written} files written to ${outDir}`)
  return failed > 0 ? 1 : 0
}
