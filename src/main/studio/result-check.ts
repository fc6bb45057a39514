/**
 * A worker's result, checked as an upload is before anything is stored: only the job's format
 * and the variations it asked for, each file real image bytes of that format (its signature
 * sniffed) with a size in its header within the output limits and a byte count plausible for
 * that size, and the size the job's parameters give for its input (a 1×1 image for a 600×399
 * job is no result), and its pixels decoded whole in the decode sandbox (a right header over a
 * junk body is no result either: a client would download bytes no viewer opens); warnings and
 * the ignored list bounded and cleaned of control characters. Every refusal is 422
 * `validation_failed` naming the part and the problem.
 */
import { SECOND_LOOK_REASONS, type SecondLookReason } from '../../shared/params-types'
import { MAX_SECOND_LOOK_VIEWS, OUTPUT_LIMITS, type StoredOutcome } from '../engine/public-run'
import type { OutputFormat, Variation } from '../../shared/api'
import { cleanText } from '../../shared/text'
import type { ErrorDetail } from '../../shared/errors'
import { EngineError } from '../engine/errors'
import { sniffImageType, type SniffedType } from '../engine/public'
import { imageSize } from './image-header'

/** Warnings kept per variation, and characters per warning. */
export const MAX_WARNINGS = 20
export const WARNING_CHARS = 300
const DEVICE_CHARS = 32
/** Room for what is not pixels in any output: XMP, EXIF, IPTC, an ICC profile, the container. */
const OVERHEAD_BYTES = 16 * 1024 * 1024
const MAX_CANVAS_SIDE = OUTPUT_LIMITS.side
const MAX_CANVAS_PIXELS = OUTPUT_LIMITS.variationPixels

const SNIFFED: Record<OutputFormat, SniffedType> = { png: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp', tiff: 'tiff', psd: 'psd' }

/** What the job lets a worker return. */
export interface ResultExpectation {
  format: OutputFormat
  variations: readonly Variation[]
  model: string
  /**
   * The canvas the job's parameters give for its input (`canvasBound`): each output must be
   * exactly this size, or at most this size where the canvas follows the subject
   * (`crop=subject`). Null where the coordinator could not tell (then only the limits apply).
   */
  canvas?: { width: number; height: number; exact: boolean } | null
}

/** One file part of a result upload, already on disk. */
export interface StagedFile {
  /** The part's name: `<variation>.<ext>`. */
  name: string
  path: string
  size: number
  /** Its first bytes, for the signature. */
  head: Buffer
}

/** The part names a result may hold: one per requested variation, in the job's format. */
export function allowedParts(e: ResultExpectation): Set<string> {
  return new Set(e.variations.map((v) => `${v}.${e.format}`))
}

/**
 * The most bytes an output of `width` × `height` can take: 16-bit RGBA uncompressed (TIFF at
 * worst) is 8 bytes a pixel; a layered PSD holds up to five 8-bit RGBA planes of the canvas
 * and its composite (a compressed format only makes it smaller).
 */
export function plausibleBytes(width: number, height: number, format: OutputFormat): number {
  return width * height * (format === 'psd' ? 24 : 9) + OVERHEAD_BYTES
}

function refuse(message: string, details: ErrorDetail[]): never {
  throw new EngineError('validation_failed', message, { details })
}

function parseMeta(text: string | null, e: ResultExpectation): Omit<StoredOutcome, 'outputs' | 'model'> {
  if (text === null) refuse('The result has no meta part.', [{ field: 'meta', issue: 'missing' }])
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    refuse('The meta part is not JSON.', [{ field: 'meta', issue: 'not valid JSON' }])
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse('The meta part must be a JSON object.', [{ field: 'meta', issue: 'not an object' }])
  const meta = value as Record<string, unknown>
  const asked = new Set<string>(e.variations)

  const warnings: Partial<Record<Variation, string[]>> = {}
  const given = meta.warnings ?? {}
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    refuse('warnings must be an object.', [{ field: 'meta.warnings', issue: 'not an object' }])
  for (const [variation, list] of Object.entries(given)) {
    if (!asked.has(variation))
      refuse(`warnings names ${cleanText(variation, 40)}, which the job did not ask for.`, [
        { field: 'meta.warnings', issue: `not one of ${e.variations.join(', ')}` }
      ])
    if (!Array.isArray(list) || list.length > MAX_WARNINGS || !list.every((w) => typeof w === 'string')) {
      refuse(`warnings.${variation} must be a list of at most ${MAX_WARNINGS} strings.`, [
        { field: `meta.warnings.${variation}`, issue: 'bad list' }
      ])
    }
    const cleaned = (list as string[]).map((w) => cleanText(w, WARNING_CHARS)).filter((w) => w !== '')
    if (cleaned.length > 0) warnings[variation as Variation] = cleaned
  }

  const ignored = meta.ignored ?? []
  if (
    !Array.isArray(ignored) ||
    ignored.length > e.variations.length ||
    !ignored.every((v) => typeof v === 'string' && asked.has(v)) ||
    new Set(ignored).size !== ignored.length
  ) {
    refuse('ignored must list variations the job asked for, each once.', [
      { field: 'meta.ignored', issue: `expected a subset of ${e.variations.join(', ')}` }
    ])
  }
  const device = typeof meta.device === 'string' ? cleanText(meta.device, DEVICE_CHARS) : ''
  if (device === '') refuse('device must name the device that ran the model.', [{ field: 'meta.device', issue: 'missing' }])
  const uncertainty = meta.uncertainty
  if (typeof uncertainty !== 'number' || !(uncertainty >= 0 && uncertainty <= 1)) {
    refuse('uncertainty must be a number from 0 to 1.', [{ field: 'meta.uncertainty', issue: 'expected a number from 0 to 1' }])
  }
  const look = (meta.secondLook ?? null) as { views?: unknown; reason?: unknown } | null
  if (
    look !== null &&
    (typeof look !== 'object' ||
      typeof look.views !== 'number' ||
      !Number.isSafeInteger(look.views) ||
      look.views < 1 ||
      look.views > MAX_SECOND_LOOK_VIEWS ||
      !(SECOND_LOOK_REASONS as readonly unknown[]).includes(look.reason))
  ) {
    refuse('secondLook must say how many views and why.', [
      {
        field: 'meta.secondLook',
        issue: `expected null or { views: 1–${MAX_SECOND_LOOK_VIEWS}, reason: ${SECOND_LOOK_REASONS.join(' | ')} }`
      }
    ])
  }
  return {
    warnings,
    ignored: ignored as Variation[],
    device,
    uncertainty,
    ...(look ? { secondLook: { views: look.views as number, reason: look.reason as SecondLookReason } } : {})
  }
}

/**
 * Decodes a staged file whole (header and every pixel) in the decode sandbox; rejects with the
 * decoder's words when it cannot. The engine's `previewInSandbox` does this and answers only a
 * small rendering.
 */
export type DecodeCheck = (path: string) => Promise<unknown>

/** Checks a result upload; its outcome (the staged files, ready to store) or a 422. */
export async function checkResult(
  e: ResultExpectation,
  metaText: string | null,
  files: StagedFile[],
  decodes: DecodeCheck
): Promise<StoredOutcome> {
  const meta = parseMeta(metaText, e)
  const byVariation = new Map(files.map((f) => [f.name.slice(0, f.name.lastIndexOf('.')) as Variation, f]))
  for (const v of e.variations) {
    const has = byVariation.has(v)
    const skipped = meta.ignored.includes(v)
    if (has === skipped) {
      refuse(
        has
          ? `The ${v} variation is both returned and listed as ignored.`
          : `The ${v} variation is missing (neither returned nor listed as ignored).`,
        [{ field: `${v}.${e.format}`, issue: has ? 'returned and ignored' : 'missing' }]
      )
    }
  }
  const sniffed = SNIFFED[e.format]
  const outputs: StoredOutcome['outputs'] = []
  for (const [variation, f] of byVariation) {
    const type = sniffImageType(f.head)
    if (type !== sniffed)
      refuse(`${f.name} is not ${e.format} image bytes.`, [
        { field: f.name, issue: `the bytes are ${type ?? 'not an image we know'}, expected ${sniffed}` }
      ])
    const size = await imageSize(f.path, type)
    if (
      !size ||
      size.width < 1 ||
      size.height < 1 ||
      size.width > MAX_CANVAS_SIDE ||
      size.height > MAX_CANVAS_SIDE ||
      size.width * size.height > MAX_CANVAS_PIXELS
    ) {
      refuse(`${f.name} does not have a plausible size in its header.`, [
        {
          field: f.name,
          issue: size
            ? `${size.width}×${size.height} is outside 1–${MAX_CANVAS_SIDE} a side, ${MAX_CANVAS_PIXELS / 1e6} MP`
            : 'the header gives no size'
        }
      ])
    }
    if (f.size > plausibleBytes(size.width, size.height, e.format)) {
      refuse(`${f.name} is too large for a ${size.width}×${size.height} image.`, [
        { field: f.name, issue: `${f.size} bytes, at most ${plausibleBytes(size.width, size.height, e.format)}` }
      ])
    }
    const want = e.canvas
    if (
      want &&
      (want.exact ? size.width !== want.width || size.height !== want.height : size.width > want.width || size.height > want.height)
    ) {
      refuse(`${f.name} is ${size.width}×${size.height}, not the size this job makes.`, [
        { field: f.name, issue: `${size.width}×${size.height}, expected ${want.exact ? '' : 'at most '}${want.width}×${want.height}` }
      ])
    }
    // Last, as the dearest check: the bytes are untrusted, so only the sandbox reads their pixels.
    await decodes(f.path).catch((err: Error) =>
      refuse(`${f.name} cannot be decoded: its image data is damaged or is not image data.`, [
        { field: f.name, issue: `the decoder says: ${cleanText(err.message, WARNING_CHARS)}` }
      ])
    )
    outputs.push({ variation, ext: e.format, staged: f.path, size: f.size })
  }
  return { ...meta, outputs, model: e.model }
}
