/**
 * Connected regions of a plane: the one labeller of the mask and refine steps (the second look's
 * surest regions, the solid step's cores, the review score's pieces), and the cells near a set.
 */

/**
 * The connected regions of the cells where `inside` is set: labels (0 = outside, from 1, in the
 * order their first cell is met row by row) and each label's size. `eight`: diagonal neighbours
 * join a region (8 for the subject, 4 for the background, so that a diagonal line of subject both
 * joins and closes).
 */
export function labelRegions(inside: Uint8Array, w: number, h: number, eight = true): { labels: Int32Array; sizes: number[] } {
  const labels = new Int32Array(w * h)
  const sizes = [0]
  const stack = new Int32Array(w * h)
  for (let s = 0; s < labels.length; s++) {
    if (!inside[s] || labels[s]) continue
    const label = sizes.length
    let top = 0
    let size = 0
    stack[top++] = s
    labels[s] = label
    while (top > 0) {
      const i = stack[--top]!
      size++
      const x = i % w
      const y = (i - x) / w
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy
        if (yy < 0 || yy >= h) continue
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx
          if (xx < 0 || xx >= w || (!eight && dx !== 0 && dy !== 0)) continue
          const j = yy * w + xx
          if (inside[j] && !labels[j]) {
            labels[j] = label
            stack[top++] = j
          }
        }
      }
    }
    sizes.push(size)
  }
  return { labels, sizes }
}

/** A connected region's size and whether it reaches the plane's edge. */
export interface Component {
  area: number
  /** Whether the region reaches the plane's edge. */
  border: boolean
}

/** The connected regions of the cells equal to `value` in a width × height plane of 0/1 bytes, in the order `labelRegions` gives. */
export function components(plane: Uint8Array, width: number, height: number, value: 0 | 1, eight: boolean): Component[] {
  const inside = new Uint8Array(width * height)
  for (let i = 0; i < inside.length; i++) inside[i] = plane[i] === value ? 1 : 0
  const { labels, sizes } = labelRegions(inside, width, height, eight)
  const border = new Uint8Array(sizes.length)
  for (let x = 0; x < width; x++) {
    border[labels[x]!] = 1
    border[labels[(height - 1) * width + x]!] = 1
  }
  for (let y = 0; y < height; y++) {
    border[labels[y * width]!] = 1
    border[labels[y * width + width - 1]!] = 1
  }
  return sizes.slice(1).map((area, k) => ({ area, border: border[k + 1] === 1 }))
}

/** Cells within `r` (Chebyshev) of a cell where `seed` is set. */
export function within(seed: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const rows = new Uint8Array(w * h)
  for (let y = 0; y < h; y++) {
    let last = -Infinity
    for (let x = 0; x < w; x++) {
      if (seed[y * w + x]) last = x
      if (x - last <= r) rows[y * w + x] = 1
    }
    last = Infinity
    for (let x = w - 1; x >= 0; x--) {
      if (seed[y * w + x]) last = x
      if (last - x <= r) rows[y * w + x] = 1
    }
  }
  const out = new Uint8Array(w * h)
  for (let x = 0; x < w; x++) {
    let last = -Infinity
    for (let y = 0; y < h; y++) {
      if (rows[y * w + x]) last = y
      if (y - last <= r) out[y * w + x] = 1
    }
    last = Infinity
    for (let y = h - 1; y >= 0; y--) {
      if (rows[y * w + x]) last = y
      if (last - y <= r) out[y * w + x] = 1
    }
  }
  return out
}
