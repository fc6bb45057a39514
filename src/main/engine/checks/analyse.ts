/**
 * The facts of an image file for the store check (`facts.ts`), its bytes decoded in the
 * engine's sandbox, never on the calling thread (the file may be anyone's). The subject comes
 * from the segmentation model (`analyseImage`: any file) or, for a file a job just wrote, from
 * the job's framing (`analyseFramed`).
 */
import type { DecodedImage, ProbedImage } from '../pipeline/decode/decode'
import { sniffImageType } from '../pipeline/decode/sniff'
import type { Rect } from '../pipeline/compose/placement'
import { factsFromFraming, factsFromMask, factsFromPixels, type ColourSpace, type FileFacts, type ImageFacts } from './facts'

export interface AnalyseDeps {
  /** The header's facts (type, colour interpretation); absent: the type is sniffed and CMYK or grey are not told apart. */
  probe?(bytes: Buffer): Promise<ProbedImage>
  decode(bytes: Buffer): Promise<DecodedImage>
}

export interface SegmentDeps extends AnalyseDeps {
  /** The model's mask of the picture at its own size (255: subject). */
  segment(image: { data: Buffer; width: number; height: number; channels: 4 }): Promise<Uint8Array>
}

function colourSpaceOf(probe: ProbedImage | null, image: DecodedImage): ColourSpace {
  if (probe?.space === 'cmyk') return 'cmyk'
  if (probe?.space === 'b-w' || probe?.space === 'grey16') return 'grey'
  // The decoder keeps an input's RGB profile only when it is not sRGB (`source-info.ts`).
  return image.metadata?.icc ? 'other-rgb' : 'srgb'
}

async function fileFacts(bytes: Buffer, deps: AnalyseDeps): Promise<{ file: FileFacts; image: DecodedImage }> {
  const probe = deps.probe ? await deps.probe(bytes) : null
  const image = await deps.decode(bytes)
  const format = probe?.type ?? sniffImageType(bytes) ?? 'unknown'
  return { file: { format, bytes: bytes.length, colourSpace: colourSpaceOf(probe, image), hasAlpha: image.hasAlpha }, image }
}

/** Any image: the model finds its subject. */
export async function analyseImage(bytes: Buffer, deps: SegmentDeps): Promise<ImageFacts> {
  const { file, image } = await fileFacts(bytes, deps)
  const mask = await deps.segment({ data: image.data, width: image.width, height: image.height, channels: 4 })
  return factsFromMask(file, image.data, image.width, image.height, mask)
}

/**
 * A file a job wrote: its subject is where the job's framing put it; a job that placed the photo
 * as it was (no framing recorded) has its subject where the picture is not background.
 */
export async function analyseFramed(bytes: Buffer, framing: { source: Rect; target: Rect } | null, deps: AnalyseDeps): Promise<ImageFacts> {
  const { file, image } = await fileFacts(bytes, deps)
  return framing
    ? factsFromFraming(file, image.data, image.width, image.height, framing)
    : factsFromPixels(file, image.data, image.width, image.height)
}
