/**
 * The engine's face for features and transports, beside their ports (`ports.ts`): the shapes a
 * port's methods take and return, and the few pure helpers whose answer must be the engine's own.
 * Outside `src/main/engine` these names are reached here, through `public-run.ts` (running the
 * pipeline outside the queue), `public-start.ts` (a host's cold start) or the ports, never through
 * the modules below (biome.json refuses them; docs/architecture.md, Ports).
 */

// A job in and out: the upload a transport builds for `upload`, a finished job's error and primary
// result as the status body shows them, and the signed-address maker the status body is given.
export type { UploadInput } from './intake/upload'
export { jobError, primaryVariation, type ResultAddress } from './status-view'

// Helpers whose answer must match the engine's: the hash it keys inputs and outputs by (a watched
// folder's and a touch-up's dedupe), the image types it recognises (a watched folder's filter,
// the studio's result check), a request's parameter problems (a watched folder's settings), the
// image types a hint may be (the OpenAPI document) and the guarded fetch of an `image_url`.
export { contentHash } from './content-hash'
export { sniffImageType, type SniffedType } from './pipeline/decode/sniff'
export { setProblems } from './params/resolve'
export { HINT_TYPES } from './pipeline/guide/hint'
export { fetchToFile } from './fetch/fetch-url'

// The shapes of a preview a feature asks the sandbox for (a batch's thumbnails, a touch-up's hint
// previews), which the engine's port methods take.
export type { PreviewRequest } from './sandbox/protocol'
export type { HintPreviews, PreviewSource } from './run/hint-preview'
