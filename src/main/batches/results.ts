import type { Engine } from '../engine/engine'
import { primaryVariation } from '../engine/status-view'
import type { JobRecord } from '../engine/store/jobs'
import { posix } from 'node:path'
import { resultsToWrite, writesAllVariations } from '../../shared/outputs'
import { dateToken, outputTarget, presetToken, renderTemplate, type TokenValues } from '../watch/template'
import { cleanRelPath, copyUnique, outputPath } from './paths'
import type { BatchRecord, ItemRecord } from './store'

/**
 * Copies a done job's results that were asked for (the primary alone unless all variations
 * are; the API's final_urls keep them all) into the batch destination under the batch's
 * name template (or `{name}.{ext}` / `{name}.{variation}.{ext}`), primary first, mirroring the
 * item's folder; never over an existing file, never through a symbolic link (`copyUnique`).
 * Returns the paths written.
 */
export async function copyResults(engine: Engine, job: JobRecord, item: ItemRecord, batch: BatchRecord): Promise<string[]> {
  const { destination, request } = batch
  const made = engine.jobs.results(job.id)
  const primary = primaryVariation(job, made.map((r) => r.variation), engine.jobParams.get(job.id)?.primary)
  const results = resultsToWrite(made, primary, writesAllVariations(request.params, request.all_variations))
  const outputs: string[] = []
  for (const r of results) {
    const target = request.name_template
      ? templatedPath(destination, item.relPath, request.name_template, {
          variation: r.variation,
          ext: r.ext,
          date: dateToken(new Date(job.createdAt)),
          preset: presetToken(request.mode, typeof request.params === 'string' ? request.params : null)
        })
      : outputPath(destination, item.relPath, r.variation, r.ext, results.length > 1)
    outputs.push(await copyUnique(r.path, target, destination))
  }
  return outputs
}

/** `<destination>/<rel dir>/<rendered template>`: tokens sanitised, checked to stay inside. */
function templatedPath(destination: string, relPath: string, template: string, tokens: Omit<TokenValues, 'name'>): string {
  const rel = cleanRelPath(relPath) ?? 'image'
  const name = posix.basename(rel, posix.extname(rel)) || 'image'
  const dir = posix.dirname(rel)
  return outputTarget(destination, dir === '.' ? '' : dir, renderTemplate(template, { ...tokens, name }))
}
