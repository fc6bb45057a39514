/**
 * What the compose step hands to the encoders: each variation's flat RGBA image and, for
 * PSD output, the layers it is made of.
 */
import type { Variation } from '../../../../shared/api'

/** 8-bit RGBA pixels, rows top to bottom, no padding. */
export interface RgbaImage {
  data: Buffer
  width: number
  height: number
  channels: 4
}

/**
 * RGBA in the input's own colour space and depth (`native-compose.ts`): bytes (depth 8) or
 * native-endian 16-bit words (depth 16).
 */
export interface NativeImage {
  data: Buffer
  width: number
  height: number
  depth: 8 | 16
  /** The profile the pixels are in; null: sRGB. */
  icc: Buffer | null
}

/** One layer of a PSD document, in canvas coordinates. */
export interface PsdLayerSpec {
  name: 'Background' | 'Shadow' | 'Subject' | 'Mask'
  /** RGBA pixels of the layer's own rectangle. */
  image: RgbaImage
  left: number
  top: number
  /** A layer mask (1 channel, 8-bit) over the same rectangle as the layer: 255 shows, 0 hides. */
  mask?: Buffer
  /** The layer's pixels in the input's own space, when the variation has them (`ComposedVariation.native`). */
  native?: NativeImage
}

export interface ComposedVariation {
  variation: Variation
  /** The flat result (also the PSD's merged composite). */
  image: RgbaImage
  /** The image is grey and opaque (the mask): written as 1-channel greyscale where the format allows. */
  greyscale?: boolean
  /** The same image in the input's own space and depth, when the input was more than 8-bit sRGB. */
  native?: NativeImage
  /** Bottom to top; only when the compose step was asked for layers (PSD output). */
  layers?: PsdLayerSpec[]
}
