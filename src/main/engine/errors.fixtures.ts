/** What tests of the engine's refusals share: the one way they read a job's failure. */
import { expect } from 'vitest'
import { JobFailure } from './errors'

/** Rejection of `promise` as a JobFailure (fails the test if it resolves or rejects otherwise). */
export async function failure(promise: Promise<unknown>): Promise<JobFailure> {
  const err = await promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(JobFailure)
  return err as JobFailure
}
