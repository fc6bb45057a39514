/**
 * The regions of a doubted mask that the model is surest of (docs/pipeline.md "Second look"). On a
 * busy background the model often answers "subject" for the background's own structures too: a
 * broad region at half strength beside the subject it is sure of, or a lattice of thin bars (a
 * building's frame, a plant's stalks) that touches the subject and joins it into one region.
 * Each region — the 8-connected pixels at least REGION (so a subject's half-transparent parts stay
 * joined to its core), opened by THIN (what is thinner than 2·THIN — bars, stalks — joins no
 * region, so a lattice no longer ties a subject to the background) — is scored by how sure the
 * model is of its core (the mean strength above 50 % of its pixels at ≥ 50 %) times how clearly
 * it stands out (the mean strength below 50 % around it); the regions scoring at least
 * KEEP_SHARE of the best are kept, everything else cleared but the kept regions' fringe (the
 * thin parts and faint haze within FRINGE of them). A candidate only: the second look keeps it
 * where the review score says the model is surer of it than of the merge and of the first look.
 */
import type { MaskPlane } from '../mask/types'
import { labelRegions, within } from '../mask/regions'

/** A region scoring at least this share of the best region's score is kept. */
export const KEEP_SHARE = 0.8

/**
 * A region is the connected pixels at or above this (a quarter). At 50 % a shelf's pots, or a
 * figure's half-transparent dress, fall apart into regions of their own and lose to the surest
 * one; at a quarter they stay one region with their core (measured on the size scenes' fit part
 * and the corpus, docs/pipeline.md "Second look").
 */
export const REGION = 64

const HALF = 128

/**
 * `plane` with only its surest regions and their fringe (a new plane; the same one when nothing is
 * cleared): the other regions are
 * cleared, and so is the faint haze under REGION farther than FRINGE from every kept region — a
 * busy background's texture the model half-saw, which would otherwise stay in the cutout as a
 * faint veil and read as doubt in the review score of a subject the second look found.
 */
export function surest(plane: MaskPlane): MaskPlane {
  const { data, width: w, height: h } = plane
  const inside = new Uint8Array(data.length)
  for (let i = 0; i < data.length; i++) inside[i] = data[i]! >= REGION ? 1 : 0
  const { labels, sizes } = labelRegions(opened(inside, w, h, Math.max(1, Math.round(THIN * Math.max(w, h)))), w, h)
  if (sizes.length <= 1) return plane
  const scores = regionScores(data, labels, sizes.length, w, h)
  const best = Math.max(...scores)
  const drop = scores.map((s, k) => k > 0 && s < KEEP_SHARE * best)
  const kept = new Uint8Array(data.length)
  for (let i = 0; i < data.length; i++) kept[i] = labels[i] && !drop[labels[i]!] ? 1 : 0
  const fringe = within(kept, w, h, Math.max(2, Math.round(FRINGE * Math.max(w, h))))
  let out: Buffer | null = null
  for (let i = 0; i < data.length; i++)
    if (data[i] !== 0 && (drop[labels[i]!] || !fringe[i])) {
      out ??= Buffer.from(data)
      out[i] = 0
    }
  return out ? { data: out, width: w, height: h } : plane
}

/** How far around a kept region its fringe (its thin parts, the soft edge under REGION) is kept, as a share of the plane's long side. */
export const FRINGE = 0.01

/**
 * The opening's radius, as a share of the plane's long side: parts thinner than twice this are
 * no region's (6 px at 1200 px). Set before measuring; on the size scenes' fit part a third less
 * loses a found car, half as much again takes thin objects of the background (docs/pipeline.md).
 */
export const THIN = 0.005

/** `inside` opened by a (2r+1)² square: what a square of that size placed inside it covers. */
function opened(inside: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const outside = new Uint8Array(inside.length)
  for (let i = 0; i < inside.length; i++) outside[i] = inside[i] ? 0 : 1
  const nearOutside = within(outside, w, h, r)
  const core = new Uint8Array(inside.length)
  for (let i = 0; i < inside.length; i++) core[i] = nearOutside[i] ? 0 : 1
  const out = within(core, w, h, r)
  for (let i = 0; i < out.length; i++) out[i] = out[i]! & inside[i]!
  return out
}

/** Each region's sureness × standing out (index 0, outside, scores 0; a region without a core, 0). */
function regionScores(data: Uint8Array, labels: Int32Array, n: number, w: number, h: number): number[] {
  const sure = new Float64Array(n)
  const core = new Float64Array(n)
  const count = new Float64Array(n)
  const x0 = new Int32Array(n).fill(w)
  const y0 = new Int32Array(n).fill(h)
  const x1 = new Int32Array(n).fill(-1)
  const y1 = new Int32Array(n).fill(-1)
  for (let i = 0; i < data.length; i++) {
    const k = labels[i]!
    if (k === 0) continue
    const x = i % w
    const y = (i - x) / w
    count[k]!++
    if (data[i]! >= HALF) {
      core[k]!++
      sure[k]! += (data[i]! - HALF) / (255 - HALF)
    }
    if (x < x0[k]!) x0[k] = x
    if (x > x1[k]!) x1[k] = x
    if (y < y0[k]!) y0[k] = y
    if (y > y1[k]!) y1[k] = y
  }
  const scores = [0]
  for (let k = 1; k < n; k++) {
    if (core[k] === 0) {
      scores.push(0)
      continue
    }
    // What surrounds it: its box grown by RING of its size's square root, without its own pixels.
    const r = Math.max(2, Math.round(RING * Math.sqrt(count[k]!)))
    let clear = 0
    let around = 0
    for (let y = Math.max(0, y0[k]! - r); y <= Math.min(h - 1, y1[k]! + r); y++)
      for (let x = Math.max(0, x0[k]! - r); x <= Math.min(w - 1, x1[k]! + r); x++) {
        const i = y * w + x
        if (labels[i] === k) continue
        clear += Math.max(0, HALF - data[i]!) / HALF
        around++
      }
    scores.push((sure[k]! / core[k]!) * (around > 0 ? clear / around : 1))
  }
  return scores
}

/** How far around a region its surroundings are read, over the square root of its size. */
const RING = 0.15
