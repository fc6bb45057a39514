/**
 * The engine's face for running the pipeline outside its own queue: the studio's coordinator and
 * workers (`studio/`, `clipdesk worker`) and the store-ready checker (`store-ready/`). Outside
 * `src/main/engine` these names are reached here or through the ports (`ports.ts`), never through
 * the modules below (biome.json refuses them; docs/architecture.md, Ports).
 */

// The job executor and what it runs against: the studio's workers run a claimed job with the same
// executor the local scheduler uses, holding the job's record through a `RunHost` (over HTTP for a
// remote worker), so the plan, the host and the ending are the protocol they share.
export {
  executeJob,
  HostUnavailable,
  type AbortReason,
  type ExecutorDeps,
  type RunEnding,
  type RunHost,
  type RunOutcome,
  type RunPlan,
  type RunResult
} from './run/execute'
// The stages a run reports as it moves (the coordinator records a remote worker's moves).
export type { PipelineStage } from './pipeline'

// The coordinator is a dispatcher plugged into the engine (`EngineSeams.dispatcher`): it is handed
// `DispatchAccess` to claim jobs into runs, and reads which statuses a running job holds.
export type { DispatchAccess, DispatchedRun, StoredOutcome } from './run/dispatch-access'
export type { Dispatcher } from './queue/dispatcher'
export { ACTIVE_STATUSES } from './job-transitions'

// A process that runs the model without a data folder (a remote worker, the store-ready checker)
// takes its models and mask cache here, and decodes untrusted bytes in the sandbox process.
export { StandaloneModels } from './run/standalone'
export { DecodeSandbox } from './sandbox/decoder'

// The bounds the coordinator checks a worker's result against before storing it: the same limits
// the engine's own compose and second look keep.
export { canvasBound } from './params/output-budget'
export { OUTPUT_LIMITS } from './pipeline/compose/output-limits'
export { MAX_SECOND_LOOK_VIEWS } from './segment/look/second-look'

// The store-ready checker measures an image and holds it against a marketplace's rules.
export { analyseImage, type SegmentDeps } from './checks/analyse'
export { evaluate } from './checks/evaluate'
