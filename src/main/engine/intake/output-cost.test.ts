/**
 * A `file_url` job's cost settled once its input's size is known, on a real SQLite file: the
 * difference charged once, nothing charged when the key cannot pay, everything given back on
 * failure, and the limits refused.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { tempDatabase, urlJob } from '../../../../test/helpers/temp-database'
import { BACKGROUND_DEFAULTS, CLIPPING_DEFAULTS } from '../../../shared/params-types'
import { JobFailure } from '../errors'
import type { Db } from '../store/db'
import { JobStore } from '../store/jobs'
import { KeyStore } from '../store/keys'
import { settleOutputCost } from './output-cost'

const database = tempDatabase()
let db: Db
let keys: KeyStore
let jobs: JobStore

beforeEach(() => {
  db = database()
  keys = new KeyStore(db)
  jobs = new JobStore(db)
})

/** A `file_url` job of a key with `credits`, charged 1 at acceptance as the upload does. */
function acceptedJob(credits: number | null): { id: string; keyId: string } {
  const { info } = keys.create({ credits })
  const id = `job-${Math.random().toString(16).slice(2)}`
  db.transaction(() => {
    jobs.insert(urlJob(id, info.id, 'background'))
    expect(keys.charge(info.id, id, 1)).toBe(true)
  })()
  return { id, keyId: info.id }
}

const failure = (fn: () => void): JobFailure => {
  try {
    fn()
  } catch (err) {
    return err as JobFailure
  }
  throw new Error('expected a JobFailure')
}

describe('settleOutputCost', () => {
  // mode=background: four variations of a 6000×6000 input, 144 MP: 2 credits.
  const large = { width: 6000, height: 6000 }

  it('charges the difference once, however often the job is run', () => {
    const job = acceptedJob(5)
    settleOutputCost({ db, keys }, job, BACKGROUND_DEFAULTS, large)
    settleOutputCost({ db, keys }, job, BACKGROUND_DEFAULTS, large)
    expect(keys.get(job.keyId)!.credits).toBe(3)
    expect(keys.heldBy(job.id)).toBe(2)
    // A failure gives every credit back.
    db.transaction(() => keys.refund(job.keyId, job.id))()
    expect(keys.get(job.keyId)!.credits).toBe(5)
    expect(keys.heldBy(job.id)).toBe(0)
  })

  it('a key that cannot pay the difference: insufficient_credits, nothing more charged', () => {
    const job = acceptedJob(1)
    const err = failure(() => settleOutputCost({ db, keys }, job, BACKGROUND_DEFAULTS, large))
    expect(err).toBeInstanceOf(JobFailure)
    expect(err.reason).toBe('insufficient_credits')
    expect(err.message).toBe('the outputs (144 MP) cost 2 credits and the API key could not pay the 1 more; nothing was charged')
    expect(keys.get(job.keyId)!.credits).toBe(0)
    expect(keys.heldBy(job.id)).toBe(1)
  })

  it('an input that turns out to ask for more than the limits: image_too_large', () => {
    const job = acceptedJob(100)
    const err = failure(() => settleOutputCost({ db, keys }, job, BACKGROUND_DEFAULTS, { width: 9000, height: 9000 }))
    expect(err.reason).toBe('image_too_large')
    expect(err.message).toBe(
      '4 variations of 9000×9000 would be 324 MP of output, over the 250 MP a job may make; ask for fewer variations or a smaller size'
    )
    expect(keys.heldBy(job.id)).toBe(1)
  })

  it('a job that costs what it paid, an unlimited key and the app (no key) are left alone', () => {
    const small = acceptedJob(1)
    settleOutputCost({ db, keys }, small, CLIPPING_DEFAULTS, { width: 4000, height: 3000 })
    expect(keys.get(small.keyId)!.credits).toBe(0)
    const unlimited = acceptedJob(null)
    settleOutputCost({ db, keys }, unlimited, BACKGROUND_DEFAULTS, large)
    expect(keys.get(unlimited.keyId)!.credits).toBeNull()
    expect(keys.heldBy(unlimited.id)).toBe(0)
    settleOutputCost({ db, keys }, { id: 'app-job', keyId: null }, BACKGROUND_DEFAULTS, large)
  })
})
