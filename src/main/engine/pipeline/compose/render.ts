/**
 * The last two steps of a job, compose and encode, from the decoded input and its alpha to the
 * encoded bytes of every variation. The engine runs this in a sandbox process (`op: 'render'`,
 * docs/pipeline.md "Compose and encode off the engine's thread"), which also writes the files:
 * a large output keeps a core and gigabytes busy, and handing hundreds of megabytes back would
 * hold the engine's thread while the message is read; that thread must stay free to answer
 * `/health` and status meanwhile. Benchmarks and studio workers run it in their own process.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { OutputFormat, Variation } from '../../../../shared/api'
import type { JobParams, SecondLook } from '../../../../shared/params-types'
import { JobFailure } from '../../errors'
import { OUTPUT_LIMITS } from './output-limits'
import { writeFileAtomic } from '../../file-helpers'
import { resultName } from '../../paths'
import { composeVariations, readsPhotoPixels } from './compose'
import type { DecodedImage } from '../decode/decode'
import { encodeVariation } from '../encode/encode'
import { srgbToNative, type ToNative } from '../metadata/native-colour'
import type { Placement } from './placement'
import type { ExifFields } from '../metadata/exif-fields'
import type { SourceMetadata } from '../metadata/source-info'
import { withSecondLook } from '../metadata/second-look-xmp'

export interface JobOutput {
  variation: Variation
  /** The format as requested: `jpg` stays `jpg`, `jpeg` stays `jpeg`. */
  ext: string
  bytes: Buffer
}

/** An output already written to its file (by the process that encoded it). */
export interface StoredOutput {
  variation: Variation
  ext: string
  path: string
  size: number
}

export interface JobResult<O = JobOutput> {
  outputs: O[]
  warnings: Partial<Record<Variation, string[]>>
  ignored: Variation[]
  /** How the subject was framed (`placement.ts`): recorded with the job for before/after views. */
  placement?: Placement
}

/** The alpha step's result as the render step takes it (`AlphaResult` in `segment-and-refine.ts` adds the uncertainty). */
export interface RenderAlpha {
  /** The subject's final alpha: 1 channel, 8-bit, image width × height. */
  alpha: Buffer
  /**
   * RGBA colours to composite with `alpha`: the subject's own colours where refined, else the
   * input's. Its A channel is 255 wherever the input's was (opaque inputs: everywhere), so
   * `makeCutout(foreground, alpha)` gives exactly `alpha`; an input alpha is folded into `alpha`.
   */
  foreground: Buffer
  warnings: string[]
  /** Where the mask came from (diagnostics, benchmark). */
  source: 'input' | 'cache' | 'model'
  /** The second look this photo got (docs/pipeline.md "Second look"), or null (or absent) for none. */
  secondLook?: SecondLook | null
}

/** What the render step needs: plain data, so that it can be handed to another process. */
export interface RenderInput {
  image: DecodedImage
  alpha: RenderAlpha
  params: JobParams
  format: OutputFormat
}

export interface RenderOptions<O> {
  /** Converts sRGB colours into the input's own profile. @default in this process */
  toNative?: ToNative
  signal?: AbortSignal
  /** Called when the variations are composed and encoding starts. */
  onEncoding?: () => void
  /**
   * Takes each output as soon as it is encoded (e.g. writes it to its file, so that its bytes
   * need not be held or handed over). @default kept in memory
   */
  keep?: (output: JobOutput) => Promise<O>
  /** Encoded bytes all outputs together may take. @default `OUTPUT_LIMITS.jobBytes` */
  maxBytes?: number
}

const formatMb = (bytes: number): string => `${(bytes / 2 ** 20).toLocaleString('en-US', { maximumFractionDigits: 3 })} MB`

function addWarnings(into: Partial<Record<Variation, string[]>>, variation: Variation, list: string[]): void {
  if (list.length > 0) into[variation] = [...(into[variation] ?? []), ...list]
}

/**
 * The render input as handed to the render sandbox: without the photo's pixels where they are
 * not read (`readsPhotoPixels`), so that a clipping's job sends its alpha and colours alone
 * (4 bytes a pixel less to copy through the pipe: measured in docs/pipeline.md, "Session settings").
 */
export function forRender(input: RenderInput): RenderInput {
  if (readsPhotoPixels(input.image, input.params, input.format === 'psd')) return input
  return { ...input, image: { ...input.image, data: Buffer.alloc(0) } }
}

/** Composes and encodes every variation the set asks for; throws `JobFailure` past the output limits. */
export async function renderOutputs(input: RenderInput, opts?: RenderOptions<JobOutput>): Promise<JobResult>
export async function renderOutputs<O>(
  input: RenderInput,
  opts: RenderOptions<O> & { keep: (output: JobOutput) => Promise<O> }
): Promise<JobResult<O>>
export async function renderOutputs<O>(input: RenderInput, opts: RenderOptions<O> = {}): Promise<JobResult<O>> {
  const keep = opts.keep ?? (async (output: JobOutput) => output as O)
  const { image, alpha, params, format } = input
  const composed = await composeVariations(image, alpha, params, { layers: format === 'psd', toNative: opts.toNative ?? srgbToNative })

  opts.signal?.throwIfAborted()
  opts.onEncoding?.()
  const warnings: Partial<Record<Variation, string[]>> = { ...composed.warnings }
  // Input-level warnings (e.g. an animated GIF) concern every output; they go with the primary.
  addWarnings(warnings, params.primary, [...image.warnings, ...alpha.warnings])
  const kept = outputMetadata(image.metadata, params.metadata, alpha.secondLook ?? null)
  const outputs: O[] = []
  const maxBytes = opts.maxBytes ?? OUTPUT_LIMITS.jobBytes
  let bytes = 0
  for (const v of composed.variations) {
    const encoded = await encodeVariation(v, format, { quality: params.quality ?? undefined, ...kept })
    bytes += encoded.bytes.length
    if (bytes > maxBytes) {
      throw new JobFailure(
        'image_too_large',
        `the outputs would take more than ${formatMb(maxBytes)}, the most a job may leave; ask for fewer variations, a smaller size or another format`
      )
    }
    addWarnings(warnings, v.variation, encoded.warnings)
    outputs.push(await keep({ variation: v.variation, ext: format, bytes: encoded.bytes }))
  }
  return { outputs, warnings, ignored: composed.ignored, placement: composed.placement }
}

/**
 * Renders the outputs and writes each to `<dir>/<variation>.<ext>` as soon as it is encoded
 * (under a temp name, then renamed): what the engine's sandbox does, so that the engine's
 * thread never receives the bytes of a large output.
 */
export async function renderToFiles(
  input: RenderInput,
  dir: string,
  opts: Omit<RenderOptions<StoredOutput>, 'keep'> = {}
): Promise<JobResult<StoredOutput>> {
  await mkdir(dir, { recursive: true })
  return renderOutputs(input, {
    ...opts,
    keep: async ({ variation, ext, bytes }) => {
      const path = join(dir, resultName(variation, ext))
      await writeFileAtomic(path, bytes)
      return { variation, ext, path, size: bytes.length }
    }
  })
}

/**
 * The XMP, EXIF and IPTC an output carries under the job's `metadata` setting: `keep` without
 * any position (docs/pipeline.md, "Metadata"), `keep-gps` with it, `strip` none. Unless
 * stripped, the XMP says which second look the photo got (`second-look-xmp.ts`).
 */
export function outputMetadata(
  source: SourceMetadata | undefined,
  setting: JobParams['metadata'],
  look: SecondLook | null = null
): { xmp: string | null; exif: ExifFields | null; iptc: Buffer | null } {
  if (setting === 'strip') return { xmp: null, exif: null, iptc: null }
  if (!source) return { xmp: withSecondLook(null, look), exif: null, iptc: null }
  const gps = setting === 'keep-gps'
  const exif = source.exif && !gps ? { ...source.exif, gps: {} } : source.exif
  return { xmp: withSecondLook(gps ? source.xmpWithGps : source.xmp, look), exif, iptc: gps ? source.iptcWithGps : source.iptc }
}
