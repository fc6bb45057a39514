/**
 * Colours made by the pipeline in 8-bit sRGB (a background colour, a blurred background, an
 * edge colour freed of the old background's fringe) brought into the input's own colour space
 * and depth, so that they sit with the input's own pixels in an output tagged with its profile.
 *
 * A background colour given as hex is sRGB (as on the web): it is converted, so that it looks
 * the same in the output as it does in a browser. With a profile the conversion is lcms's
 * (relative colorimetric; perceptual for matrix profiles is the same), through sharp. The
 * profile came from an untrusted file, so with one this runs inside the decode sandbox
 * (`toNative` of the engine's plan); without one it is a plain widening to 16 bits.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { JobFailure } from '../../errors'

export interface NativeTarget {
  /** The profile to convert into; null: sRGB. */
  icc: Buffer | null
  depth: 8 | 16
}

/** 8-bit sRGB RGBA (width × height) → RGBA in `target`'s space and depth; alpha is scaled, never changed. */
export type ToNative = (rgba: Buffer, width: number, height: number, target: NativeTarget) => Promise<Buffer>

/** 8-bit values as 16-bit words (v·257, so 255 → 65535). */
export function widen(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(bytes.length * 2)
  const words = new Uint16Array(out.buffer, out.byteOffset, bytes.length)
  for (let i = 0; i < bytes.length; i++) words[i] = bytes[i]! * 257
  return out
}

/** 16-bit words as 8-bit values, rounded. */
export function narrow(words: Buffer): Buffer {
  const src = new Uint16Array(words.buffer, words.byteOffset, words.length / 2)
  const out = Buffer.allocUnsafe(src.length)
  for (let i = 0; i < src.length; i++) out[i] = (src[i]! + 128) / 257
  return out
}

export const srgbToNative: ToNative = async (rgba, width, height, target) => {
  if (!target.icc) return target.depth === 16 ? widen(rgba) : rgba
  // sharp takes an output profile only as a file.
  const dir = await mkdtemp(join(tmpdir(), 'clipdesk-icc-'))
  try {
    const path = join(dir, 'profile.icc')
    await writeFile(path, target.icc)
    let pipeline = sharp(rgba, { raw: { width, height, channels: 4 } })
    // A profile lcms cannot convert into (e.g. one that only describes input) is skipped by
    // sharp with a warning, leaving the pixels unconverted: that must fail, not pass.
    const warnings: string[] = []
    pipeline.on('warning', (w: string) => warnings.push(w))
    if (target.depth === 16) pipeline = pipeline.toColourspace('rgb16')
    const { data, info } = await pipeline
      .withIccProfile(path, { attach: false })
      .raw({ depth: target.depth === 16 ? 'ushort' : 'uchar' })
      .toBuffer({ resolveWithObject: true })
    if (warnings.length > 0)
      throw new JobFailure('pipeline_error', `cannot convert into the input's colour profile: ${warnings.join('; ')}`)
    if (info.channels !== 4 || data.length !== width * height * 4 * (target.depth / 8)) {
      throw new JobFailure('pipeline_error', `colour conversion gave ${info.width}×${info.height}×${info.channels}, expected RGBA`)
    }
    copyAlpha(rgba, data, target.depth)
    return data
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The alpha of 8-bit RGBA `from` into RGBA `to` at `depth` (the transform scales it by 256, not 257). */
function copyAlpha(from: Buffer, to: Buffer, depth: 8 | 16): void {
  if (depth === 8) {
    for (let i = 3; i < from.length; i += 4) to[i] = from[i]!
    return
  }
  const words = new Uint16Array(to.buffer, to.byteOffset, to.length / 2)
  for (let i = 3; i < from.length; i += 4) words[i] = from[i]! * 257
}
