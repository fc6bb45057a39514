import { describe, expect, it } from 'vitest'
import { knownMeans } from './known-colours'
import { keepSides } from './refine'
import { unmix } from './unmix'

const W = 240
const H = 40

/**
 * A composite of known answer, drawn in code: a flat subject colour F on the right, background
 * `bg(x)` on the left, a soft edge (true α a ramp from x = 90 to x = 130) between.
 */
function edge(f: number[], bg: (x: number) => number[]) {
  const image = Buffer.alloc(W * H * 4)
  const alpha = Buffer.alloc(W * H)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x
      const a = Math.min(1, Math.max(0, (x - 90) / 40))
      alpha[i] = Math.round(a * 255)
      const b = bg(x)
      for (let c = 0; c < 3; c++) image[i * 4 + c] = Math.round((alpha[i]! / 255) * f[c]! + (1 - alpha[i]! / 255) * b[c]!)
      image[i * 4 + 3] = 255
    }
  return { image, alpha }
}

/** An alpha that is wrong in the band (the true one pulled towards 50 %), as a blurry model gives. */
function blurryAlpha(truth: Buffer): Buffer {
  return Buffer.from(truth.map((a) => (a === 0 || a === 255 ? a : Math.round(a + (128 - a) * 0.4))))
}

function run(image: Buffer, alpha: Buffer, nearRadius?: number) {
  const out = Buffer.from(image)
  const means = knownMeans({ data: image, width: W, height: H, channels: 4 }, alpha, 45, 1, nearRadius)
  // Copies: the means live in the scratch arena.
  const near = means.near && { bg: means.near.bg.slice(), bgVar: means.near.bgVar.slice() }
  const k = {
    fg: means.fg.slice(),
    bg: means.bg.slice(),
    fgVar: means.fgVar.slice(),
    bgVar: means.bgVar.slice(),
    near,
    width: W,
    height: H,
    step: 1
  }
  const a = Buffer.from(alpha)
  const count = unmix(out, a, alpha, W, H, k)
  return { out, alpha: a, count, k }
}

const F = [220, 120, 40]

describe('unmix', () => {
  it('plain subject on a plain background: the colour line puts the alpha and the colour right', () => {
    const { image, alpha: truth } = edge(F, () => [30, 60, 200])
    const given = blurryAlpha(truth)
    const { out, alpha, count } = run(image, given)
    expect(count).toBeGreaterThan(38 * H)
    let before = 0
    let after = 0
    for (let y = 0; y < H; y++)
      for (let x = 92; x < 129; x++) {
        const i = y * W + x
        before += Math.abs(given[i]! - truth[i]!)
        after += Math.abs(alpha[i]! - truth[i]!)
        // Either side of 50 % the given alpha was on stays (here the true one is on it too).
        expect(alpha[i]! >= 128).toBe(given[i]! >= 128)
        if (alpha[i]! > 40) for (let c = 0; c < 3; c++) expect(Math.abs(out[i * 4 + c]! - F[c]!)).toBeLessThanOrEqual(6)
      }
    expect(after).toBeLessThan(before / 10)
  })

  it('busy background: the unmixed colour is trusted less, and stays nearer the truth than plain unmixing', () => {
    // Columns alternating between two far-apart colours: the local mean B̄ is never the colour behind a pixel.
    const { image, alpha: truth } = edge(F, (x) => (x % 2 === 0 ? [20, 200, 30] : [240, 30, 230]))
    const given = blurryAlpha(truth)
    const { out, k } = run(image, given)
    let ours = 0
    let plain = 0
    for (let y = 0; y < H; y++)
      for (let x = 92; x < 129; x++) {
        const i = y * W + x
        const a = given[i]! / 255
        if (a <= 0.1) continue
        for (let c = 0; c < 3; c++) {
          const unmixed = Math.min(255, Math.max(0, (k.bg[i * 3 + c]! + (image[i * 4 + c]! / 255 - k.bg[i * 3 + c]!) / a) * 255))
          plain += Math.abs(unmixed - F[c]!)
          ours += Math.abs(out[i * 4 + c]! - F[c]!)
        }
      }
    expect(ours).toBeLessThan(plain)
  })

  it('background with structure: the near window’s mean is nearer the colour behind the edge', () => {
    // A background that darkens steeply towards the edge: the wide window's mean is far lighter
    // than the colour right behind the soft band.
    const { image, alpha } = edge(F, (x) => {
      const v = Math.max(0, Math.min(255, 255 - x * 2.5))
      return [v, v, 255]
    })
    // The pixels within the near window's reach of the known background (α = 0 up to x = 90).
    const err = (out: Buffer): number => {
      let e = 0
      for (let y = 0; y < H; y++)
        for (let x = 95; x <= 98; x++) for (let c = 0; c < 3; c++) e += Math.abs(out[(y * W + x) * 4 + c]! - F[c]!)
      return e
    }
    const wide = run(image, alpha)
    const near = run(image, alpha, 8)
    expect(err(near.out)).toBeLessThan(err(wide.out) * 0.7)
  })

  it('a nearly opaque strand given too low an alpha is not unmixed into an oversaturated colour', () => {
    // Only the strand: no known subject anywhere, so the colour line cannot correct the alpha
    // (α stays as given), but it still says the pixel is far more opaque than 50 %.
    const image = Buffer.alloc(W * H * 4)
    const alpha = Buffer.alloc(W * H)
    const bg = [30, 60, 200]
    const trueA = 0.95
    for (let i = 0; i < W * H; i++) {
      const strand = i % W >= 110 && i % W < 114
      for (let c = 0; c < 3; c++) image[i * 4 + c] = strand ? Math.round(trueA * F[c]! + (1 - trueA) * bg[c]!) : bg[c]!
      image[i * 4 + 3] = 255
      alpha[i] = strand ? 128 : 0
    }
    const { out, alpha: after } = run(image, alpha)
    let ours = 0
    let plain = 0
    for (let y = 0; y < H; y++)
      for (let x = 110; x < 114; x++) {
        const i = y * W + x
        expect(after[i]).toBe(128)
        for (let c = 0; c < 3; c++) {
          const unmixed = Math.min(255, Math.max(0, bg[c]! + (image[i * 4 + c]! - bg[c]!) / (128 / 255)))
          plain += Math.abs(unmixed - F[c]!)
          ours += Math.abs(out[i * 4 + c]! - F[c]!)
        }
      }
    expect(ours).toBeLessThan(plain * 0.8)
  })

  it('opaque and far-transparent pixels are left alone', () => {
    const { image, alpha } = edge(F, () => [30, 60, 200])
    const { out } = run(image, alpha)
    for (let y = 0; y < H; y++) {
      for (const x of [0, 40, 160, 239])
        expect(out.subarray((y * W + x) * 4, (y * W + x) * 4 + 4).equals(image.subarray((y * W + x) * 4, (y * W + x) * 4 + 4))).toBe(true)
    }
  })
})

describe('knownMeans variances', () => {
  it('0 over flat known colours; the spread of the colours where they vary; +∞ where the window holds none', () => {
    const flat = edge(F, () => [30, 60, 200])
    const m = knownMeans({ data: flat.image, width: W, height: H, channels: 4 }, flat.alpha, 10)
    for (const x of [60, 80]) expect(m.bgVar[20 * W + x]).toBeLessThan(1e-6)
    for (const x of [140, 200]) expect(m.fgVar[20 * W + x]).toBeLessThan(1e-6)
    const busy = edge(F, (x) => (x % 2 === 0 ? [0, 0, 0] : [200, 200, 200]))
    const b = knownMeans({ data: busy.image, width: W, height: H, channels: 4 }, busy.alpha, 10)
    // Two colours 200 apart in equal shares: variance (100/255)² per channel, three channels.
    expect(b.bgVar[20 * W + 40]).toBeCloseTo(3 * (100 / 255) ** 2, 2)
    expect(b.fgVar[20 * W + 200]).toBeLessThan(1e-6)
    // 10 px around x = 40 there is no known subject (α = 1 from x = 130 on).
    expect(b.fgVar[20 * W + 40]).toBe(Infinity)
  })
})

describe('knownMeans near background', () => {
  it('is the known background over the smaller window, as a call with that radius gives, on every grid', () => {
    const w = 97
    const h = 61
    const img = new Uint8Array(w * h * 4)
    const alpha = new Uint8Array(w * h)
    let s = 7
    for (let i = 0; i < img.length; i++) {
      s = (s * 1103515245 + 12345) >>> 0
      img[i] = s >>> 24
    }
    for (let i = 0; i < w * h; i++) {
      const x = i % w
      alpha[i] = x < 30 ? 0 : x > 60 ? 255 : (x * 37) % 256
    }
    const image = { data: img, width: w, height: h, channels: 4 }
    for (const step of [1, 2, 3]) {
      const small = knownMeans(image, alpha, 2, step)
      const bg = small.bg.slice()
      const bgVar = small.bgVar.slice()
      const both = knownMeans(image, alpha, 6, step, 2)
      expect(both.near).not.toBeNull()
      let infinite = 0
      for (let i = 0; i < bgVar.length; i++) {
        if (bgVar[i] === Infinity) {
          infinite++
          expect(both.near!.bgVar[i]).toBe(Infinity)
          continue
        }
        expect(Math.abs(bgVar[i]! - both.near!.bgVar[i]!)).toBeLessThan(1e-4)
        for (let c = 0; c < 3; c++) expect(Math.abs(bg[i * 3 + c]! - both.near!.bg[i * 3 + c]!)).toBeLessThan(1e-4)
      }
      // Far inside the subject the small window holds no known background.
      expect(infinite).toBeGreaterThan(0)
      // The wide window's planes are those of a call without the near one.
      const wideBg = both.bg.slice()
      const wide = knownMeans(image, alpha, 6, step)
      expect(wide.near).toBeNull()
      expect(Math.max(...wideBg.map((v, i) => Math.abs(v - wide.bg[i]!)))).toBeLessThan(1e-6)
    }
  })

  it('rejects a near radius that is not smaller than the window', () => {
    const image = { data: new Uint8Array(48), width: 4, height: 4, channels: 3 }
    expect(() => knownMeans(image, new Uint8Array(16), 2, 1, 2)).toThrow(
      'knownMeans: nearRadius must be an integer from 1 to radius − 1, got 2'
    )
    expect(() => knownMeans(image, new Uint8Array(16), 2, 1, 0)).toThrow(
      'knownMeans: nearRadius must be an integer from 1 to radius − 1, got 0'
    )
  })
})

describe('keepSides', () => {
  it("keeps the refined alpha on the model's side of 50 % and near a sure model, certain where the model is, and cuts the faint tail", () => {
    const sides = Buffer.from([0, 100, 127, 128, 200, 254, 10, 60, 2, 3, 253, 252])
    const alpha = Buffer.from([0, 200, 128, 30, 127, 0, 20, 21, 60, 60, 140, 140])
    keepSides(alpha, sides)
    // (3 → at most 15, then cut as tail; 252 → at least 240: see side-bound.ts.)
    expect([...alpha]).toEqual([0, 127, 127, 128, 128, 255, 0, 21, 0, 0, 255, 240])
  })
})
