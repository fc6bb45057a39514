/**
 * Resolves a job's mode and `params` into the full parameter set the pipeline runs with.
 * Today only `clipping` (its defaults); `background` and `params` fail with `not_implemented`
 * rather than give a fake output.
 */
import type { Mode } from '../../../shared/api'
import { CLIPPING_DEFAULTS, type JobParams } from '../../../shared/params-types'
import { JobFailure } from '../errors'

export function resolveJobParams(mode: Mode, _params: string | Record<string, unknown> | null): JobParams {
  if (mode === 'clipping') return CLIPPING_DEFAULTS
  throw new JobFailure('not_implemented', `Mode "${mode}" is not available in this version; use mode "clipping".`)
}
