/**
 * A job's output cost settled once its input's size is known (docs/api.md §3). At acceptance an
 * uploaded file's size is known from its header, so the charge made then is already right; a
 * `file_url` job is charged for what its parameter set alone tells (at least 1 credit) and
 * settled here, after the download is decoded and before the model runs: over the output limits
 * it fails `image_too_large`, and a key that cannot pay the difference fails it
 * `insufficient_credits`. Either way its credits are given back with the failure.
 */
import type { JobParams } from '../../../shared/params-types'
import { JobFailure } from '../errors'
import { creditsFor, outputBound } from '../params/output-budget'
import { overLimit } from '../pipeline/compose/output-limits'
import type { Db } from '../store/db'
import type { JobRecord } from '../store/jobs'
import type { KeyStore } from '../store/keys'

export function settleOutputCost(
  ctx: { db: Db; keys: KeyStore },
  job: Pick<JobRecord, 'id' | 'keyId'>,
  params: JobParams,
  size: { width: number; height: number }
): void {
  const bound = outputBound(params, size)
  const over = overLimit(bound)
  if (over) throw new JobFailure('image_too_large', over)
  const keyId = job.keyId
  if (keyId === null) return
  const due = creditsFor(bound.pixels)
  // Every job of a key with a balance was charged 1 at acceptance: most jobs stop here.
  if (due <= 1) return
  ctx.db.transaction(() => {
    // From the ledger, so a job run again (after a crash) is never charged twice.
    const key = ctx.keys.get(keyId)
    if (!key || key.credits === null) return
    const more = due - ctx.keys.heldBy(job.id)
    if (more <= 0) return
    if (!ctx.keys.charge(keyId, job.id, more)) {
      throw new JobFailure(
        'insufficient_credits',
        `the outputs (${Math.round(bound.pixels! / 1e6)} MP) cost ${due} credits and the API key could not pay the ${more} more; nothing was charged`
      )
    }
  })()
}
