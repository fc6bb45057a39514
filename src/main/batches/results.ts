import type { Engine } from '../engine/engine'
import { primaryVariation } from '../engine/status-view'
import type { JobRecord } from '../engine/store/jobs'
import { resultsToWrite } from '../../shared/outputs'
import { copyUnique, outputPath } from './paths'
import type { ItemRecord } from './store'

/**
 * Copies a done job's results that were asked for (the primary alone unless `all`; the API's
 * final_urls keep them all) into the batch destination, primary first, mirroring the
 * item's folder; never over an existing file, never through a symbolic link (`copyUnique`).
 * Returns the paths written.
 */
export async function copyResults(engine: Engine, job: JobRecord, item: ItemRecord, destination: string, all: boolean): Promise<string[]> {
  const made = engine.jobs.results(job.id)
  const primary = primaryVariation(job, made.map((r) => r.variation), engine.jobParams.get(job.id)?.primary)
  const results = resultsToWrite(made, primary, all)
  const outputs: string[] = []
  for (const r of results) {
    outputs.push(await copyUnique(r.path, outputPath(destination, item.relPath, r.variation, r.ext, results.length > 1), destination))
  }
  return outputs
}
