/**
 * The engine's face for a host's cold start (`cli.ts`, `clipdesk serve`): it starts the model's
 * worker thread and the decode sandboxes while the command's modules load, and gives back the
 * spare model worker a command did not use. Kept apart from the other faces so that the CLI's
 * first module loads only these few (docs/pipeline.md, "Cold start").
 */
export { lastSession } from './segment/session/last-session'
export { machineCacheDir } from './segment/session/machine'
export { discardSpareSessionWorker, prestartSessionWorker } from './segment/session/session-worker'
export { startSandboxesAhead } from './sandbox/specs'
