/**
 * PSD output (docs/pipeline.md), written with ag-psd: a layered document a designer can keep editing —
 * `Background`, `Shadow` (when made) and `Subject`, whose pixels are the input's own with the
 * alpha as a real layer mask (not baked into its transparency) — plus the merged composite that
 * viewers without layer support show. 8-bit RGB (ag-psd writes no other depth: a 16-bit input's
 * values are rounded), in the input's own colour space when the variation has its pixels
 * (`ComposedVariation.native`), else sRGB, tagged with that profile (an ICC profile resource,
 * which ag-psd does not write: added after); with the input's XMP and IPTC where kept. Layers are
 * ordinary (unlocked) layers.
 */
import type { Layer, Psd } from 'ag-psd'
import { JobFailure } from '../../errors'
import { agPsd } from '../decode/ag-psd'
import { imageResource, RESOURCE_IPTC } from './encoded-blocks'
import { srgbProfileBytes } from './encode-source'
import { narrow } from '../metadata/native-colour'
import type { ComposedVariation, NativeImage, PsdLayerSpec } from '../compose/variation'
import { errorText } from '../../../../shared/errors'

/** 8-bit RGBA of pixels in the input's own space. */
const eightBit = (n: NativeImage): Buffer => (n.depth === 16 ? narrow(n.data) : n.data)

/** A 1-channel mask as the RGBA-strided image data ag-psd reads masks from (channel 0). */
function maskImageData(mask: Buffer, width: number, height: number): { width: number; height: number; data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4)
  for (let i = 0, j = 0; i < mask.length; i++, j += 4) {
    data[j] = mask[i]!
    data[j + 3] = 255
  }
  return { width, height, data }
}

function toLayer(spec: PsdLayerSpec): Layer {
  const { image, left, top } = spec
  const layer: Layer = {
    name: spec.name,
    left,
    top,
    imageData: { width: image.width, height: image.height, data: spec.native ? eightBit(spec.native) : image.data }
  }
  if (spec.mask) {
    if (spec.mask.length !== image.width * image.height)
      throw new JobFailure('pipeline_error', `the ${spec.name} mask does not match its layer`)
    // Outside its rectangle the mask hides (defaultColor 0), as the subject's alpha does.
    layer.mask = { left, top, defaultColor: 0, imageData: maskImageData(spec.mask, image.width, image.height) }
  }
  return layer
}

/** The PSD document of one variation: its layers (bottom to top) and its flat image as the composite. */
export async function encodePsd(v: ComposedVariation, opts: { xmp?: string | null; iptc?: Buffer | null } = {}): Promise<Buffer> {
  const { image } = v
  const specs = v.layers ?? [
    { name: v.variation === 'mask' ? 'Mask' : 'Subject', image, left: 0, top: 0, native: v.native } satisfies PsdLayerSpec
  ]
  const psd: Psd = {
    width: image.width,
    height: image.height,
    imageData: { width: image.width, height: image.height, data: v.native ? eightBit(v.native) : image.data },
    children: specs.map(toLayer),
    ...(opts.xmp ? { imageResources: { xmpMetadata: opts.xmp } } : {})
  }
  const icc = v.native?.icc ?? (await srgbProfileBytes())
  try {
    // noBackground: the bottom layer stays an ordinary layer, so it can hold transparency and be moved.
    const resources = [imageResource(RESOURCE_ICC_PROFILE, icc)]
    if (opts.iptc) resources.push(imageResource(RESOURCE_IPTC, opts.iptc))
    return withImageResources(agPsd().writePsdBuffer(psd, { noBackground: true }), resources)
  } catch (cause) {
    throw new JobFailure('pipeline_error', `cannot write psd: ${errorText(cause)}`, { cause })
  }
}

/** Image resource id of an embedded ICC profile (Adobe's "Photoshop File Formats" specification). */
const RESOURCE_ICC_PROFILE = 1039

/**
 * A PSD (as ag-psd wrote it) with image resources added at the end of its image resources
 * section (header 26 bytes, colour mode data as u32 length + data, then the section as u32
 * length + blocks).
 */
export function withImageResources(psd: Buffer, blocks: Buffer[]): Buffer {
  const sectionAt = 26 + 4 + psd.readUInt32BE(26)
  const sectionLength = psd.readUInt32BE(sectionAt)
  const added = Buffer.concat(blocks)
  const length = Buffer.alloc(4)
  length.writeUInt32BE(sectionLength + added.length)
  const end = sectionAt + 4 + sectionLength
  return Buffer.concat([psd.subarray(0, sectionAt), length, psd.subarray(sectionAt + 4, end), added, psd.subarray(end)])
}
