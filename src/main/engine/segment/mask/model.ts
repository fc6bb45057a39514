/**
 * The IS-Net ONNX model, assembled from the chunks that `@imgly/background-removal-data` ships
 * (IMG.LY's weights alone: the package brings no native runtime of its own, so an installed
 * Clipdesk has one onnxruntime-node and one sharp).
 *
 * The package stores each model as a list of ~4 MB chunks in `dist/`, each file named by its own
 * SHA-256 and listed in order in `dist/resources.json`. Concatenated, they are a plain ONNX file.
 * We check every chunk against its name so a damaged install fails clearly (`model_unavailable`)
 * instead of as an obscure ONNX parse error, or worse, a model that runs with wrong weights.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { JobFailure } from '../../errors'

export type ModelVariant = 'small' | 'medium'

interface ResourceChunk {
  hash: string
  offsets: [number, number]
}

interface ResourceEntry {
  chunks: ResourceChunk[]
  size: number
}

/** The package's `dist/` folder, where `resources.json` lists the chunks (it has no main entry). */
export function defaultModelDir(): string {
  const require = createRequire(import.meta.url)
  return path.join(path.dirname(require.resolve('@imgly/background-removal-data/package.json')), 'dist')
}

// Keyed by directory + variant; holds the promise so concurrent callers share one assembly.
const cache = new Map<string, Promise<Uint8Array>>()

/**
 * The assembled ONNX bytes of `variant`. `dir` (for tests) points at another folder laid out
 * like the package's `dist/`. A failed load is not cached, so a repaired install is picked up.
 */
export function loadModel(variant: ModelVariant, opts: { dir?: string } = {}): Promise<Uint8Array> {
  const dir = path.resolve(opts.dir ?? defaultModelDir())
  const key = `${dir}\0${variant}`
  let pending = cache.get(key)
  if (!pending) {
    pending = assemble(dir, variant)
    cache.set(key, pending)
    pending.catch(() => cache.delete(key))
  }
  return pending
}

/**
 * Names the built-in variant's weights for the machine's caches: the variant and a hash of its
 * chunks' names (each chunk is named by its SHA-256), so a package update with other weights
 * gets a new id. Reads only the manifest.
 */
export function builtinModelId(variant: ModelVariant, opts: { dir?: string } = {}): string {
  const entry = readEntrySync(path.resolve(opts.dir ?? defaultModelDir()), variant)
  const digest = createHash('sha256')
    .update(entry.chunks.map((c) => c.hash.toLowerCase()).join('\n'))
    .digest('hex')
  return `isnet-${variant}@${digest.slice(0, 16)}`
}

/**
 * The assembled model bytes for one session alone, to hand over to its worker. `loadModel`
 * caches the bytes it assembles; taking them out of the cache first means nothing else can be
 * holding the buffer when it is transferred (a concurrent load that got the same promise finds
 * it detached and assembles its own).
 */
export async function takeModel(variant: ModelVariant, dir: string | undefined): Promise<Uint8Array> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const model = await loadModel(variant, { dir })
    clearModelCache()
    if (model.byteLength > 0) return model
  }
  throw unavailable(`cannot assemble the ${variant} IS-Net model: its bytes were taken by another session`)
}

/** Forget cached models (tests; or to free ~90 MB once a session has been created). */
export function clearModelCache(): void {
  cache.clear()
}

async function assemble(dir: string, variant: ModelVariant): Promise<Uint8Array> {
  const entry = await readEntry(dir, variant)
  const model = new Uint8Array(entry.size)
  let expectedStart = 0
  for (const [i, chunk] of entry.chunks.entries()) {
    const [start, end] = chunk.offsets
    // The chunks must tile the file exactly, in order; anything else is a broken manifest.
    if (start !== expectedStart || end <= start || end > entry.size) {
      throw unavailable(`chunk ${i} of the ${variant} model has bad offsets [${start}, ${end}]`)
    }
    let bytes: Buffer
    try {
      bytes = await readFile(path.join(dir, chunk.hash))
    } catch (cause) {
      throw unavailable(`chunk ${i} (${chunk.hash}) of the ${variant} model is missing`, cause)
    }
    if (bytes.length !== end - start) {
      throw unavailable(`chunk ${i} of the ${variant} model has ${bytes.length} bytes, expected ${end - start}`)
    }
    const digest = createHash('sha256').update(bytes).digest('hex')
    if (digest !== chunk.hash.toLowerCase()) {
      throw unavailable(`chunk ${i} of the ${variant} model is corrupt (SHA-256 ${digest}, expected ${chunk.hash})`)
    }
    model.set(bytes, start)
    expectedStart = end
  }
  if (expectedStart !== entry.size) {
    throw unavailable(`the ${variant} model's chunks cover ${expectedStart} of ${entry.size} bytes`)
  }
  return model
}

async function readEntry(dir: string, variant: ModelVariant): Promise<ResourceEntry> {
  let text: string
  try {
    text = await readFile(path.join(dir, 'resources.json'), 'utf8')
  } catch (cause) {
    throw unavailable(`cannot read the model manifest ${path.join(dir, 'resources.json')}`, cause)
  }
  return entryOf(text, dir, variant)
}

function readEntrySync(dir: string, variant: ModelVariant): ResourceEntry {
  let text: string
  try {
    text = readFileSync(path.join(dir, 'resources.json'), 'utf8')
  } catch (cause) {
    throw unavailable(`cannot read the model manifest ${path.join(dir, 'resources.json')}`, cause)
  }
  return entryOf(text, dir, variant)
}

function entryOf(text: string, dir: string, variant: ModelVariant): ResourceEntry {
  let manifest: unknown
  try {
    manifest = JSON.parse(text)
  } catch (cause) {
    throw unavailable(`cannot read the model manifest ${path.join(dir, 'resources.json')}`, cause)
  }
  const entry = (manifest as Record<string, unknown> | null)?.[`/models/${variant}`]
  if (!isResourceEntry(entry)) {
    throw unavailable(`the model manifest has no valid entry for the ${variant} model`)
  }
  return entry
}

function isResourceEntry(value: unknown): value is ResourceEntry {
  if (typeof value !== 'object' || value === null) return false
  const { chunks, size } = value as Record<string, unknown>
  return (
    Number.isSafeInteger(size) &&
    (size as number) > 0 &&
    Array.isArray(chunks) &&
    chunks.length > 0 &&
    chunks.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        // The hash doubles as a file name: insist on plain hex so it cannot escape `dir`.
        /^[0-9a-f]{64}$/i.test(String((c as ResourceChunk).hash)) &&
        Array.isArray((c as ResourceChunk).offsets) &&
        (c as ResourceChunk).offsets.length === 2 &&
        (c as ResourceChunk).offsets.every((n) => Number.isSafeInteger(n) && n >= 0)
    )
  )
}

function unavailable(message: string, cause?: unknown): JobFailure {
  return new JobFailure('model_unavailable', message, { cause })
}
