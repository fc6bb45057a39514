/**
 * The most a job's outputs may be (docs/api.md §3 and §15): a variation's canvas, a side, all the
 * variations together, their encoded bytes; and the sentence that names the first one a bound
 * passes. The job's cost and its bound before it runs are `params/output-budget.ts`; the compose
 * step checks the canvas it is about to draw against the same limits.
 */

export const OUTPUT_LIMITS = {
  /** Pixels of one variation's canvas (the input's own limit). */
  variationPixels: 100_000_000,
  /** Pixels of a canvas side (PSD's limit). */
  side: 30_000,
  /** Pixels of all the variations of one job together: a 61 MP photo's four default variations fit. */
  jobPixels: 250_000_000,
  /** Bytes of all the encoded outputs of one job together. */
  jobBytes: 2 ** 30,
  /** One credit buys this many output pixels (summed over the variations), started. */
  creditPixels: 100_000_000
} as const

export interface OutputBound {
  /** Each variation's canvas, at most; null when it depends on an input not yet known. */
  canvas: { width: number; height: number } | null
  /** Variations asked for. */
  variations: number
  /** canvas × variations; null when the canvas is not known yet. */
  pixels: number | null
}

/** The first limit `bound` passes, as a sentence naming the numbers; null when it fits. */
export function overLimit(bound: OutputBound): string | null {
  const { canvas, variations, pixels } = bound
  if (!canvas || pixels === null) return null
  const mp = (n: number): string => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} MP`
  if (
    canvas.width > OUTPUT_LIMITS.side ||
    canvas.height > OUTPUT_LIMITS.side ||
    canvas.width * canvas.height > OUTPUT_LIMITS.variationPixels
  ) {
    return `the output canvas would be ${canvas.width}×${canvas.height}, over the limit (${OUTPUT_LIMITS.side.toLocaleString('en-US')} px a side, ${mp(OUTPUT_LIMITS.variationPixels)} a variation); use a smaller size or margin`
  }
  if (pixels > OUTPUT_LIMITS.jobPixels) {
    return `${variations} variations of ${canvas.width}×${canvas.height} would be ${mp(pixels)} of output, over the ${mp(OUTPUT_LIMITS.jobPixels)} a job may make; ask for fewer variations or a smaller size`
  }
  return null
}
