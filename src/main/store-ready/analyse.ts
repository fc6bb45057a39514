/**
 * The facts of an image file for the store check (`facts.ts`), its bytes decoded in the
 * engine's sandbox, never on this thread (the file may be anyone's). The subject comes from
 * the segmentation model (`segment`) or, for a file a job just wrote, from the job's framing.
 */
import type { DecodedImage, ProbedImage } from '../engine/pipeline/decode/decode'
import type { Rect } from '../engine/pipeline/compose/placement'
import { factsFromFraming, factsFromMask, type ColourSpace, type FileFacts, type ImageFacts } from './facts'

export interface AnalyseDeps {
  probe(bytes: Buffer): Promise<ProbedImage>
  decode(bytes: Buffer): Promise<DecodedImage>
  /** The model's mask of the picture at its own size (255: subject). */
  segment(image: { data: Buffer; width: number; height: number; channels: 4 }): Promise<Uint8Array>
}

function colourSpaceOf(probe: ProbedImage, image: DecodedImage): ColourSpace {
  if (probe.space === 'cmyk') return 'cmyk'
  if (probe.space === 'b-w' || probe.space === 'grey16') return 'grey'
  // The decoder keeps an input's RGB profile only when it is not sRGB (`source-info.ts`).
  return image.metadata?.icc ? 'other-rgb' : 'srgb'
}

async function fileFacts(bytes: Buffer, deps: Pick<AnalyseDeps, 'probe' | 'decode'>): Promise<{ file: FileFacts; image: DecodedImage }> {
  const probe = await deps.probe(bytes)
  const image = await deps.decode(bytes)
  return {
    file: { format: probe.type, bytes: bytes.length, colourSpace: colourSpaceOf(probe, image), hasAlpha: image.hasAlpha },
    image
  }
}

/** Any image: the model finds its subject. */
export async function analyseImage(bytes: Buffer, deps: AnalyseDeps): Promise<ImageFacts> {
  const { file, image } = await fileFacts(bytes, deps)
  const mask = await deps.segment({ data: image.data, width: image.width, height: image.height, channels: 4 })
  return factsFromMask(file, image.data, image.width, image.height, mask)
}

/** A file a job wrote: its subject is where the job's framing put it. */
export async function analyseFramed(
  bytes: Buffer,
  framing: { source: Rect; target: Rect },
  deps: Pick<AnalyseDeps, 'probe' | 'decode'>
): Promise<ImageFacts> {
  const { file, image } = await fileFacts(bytes, deps)
  return factsFromFraming(file, image.data, image.width, image.height, framing)
}
