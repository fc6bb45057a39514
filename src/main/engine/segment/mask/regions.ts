/**
 * Connected regions of a plane: the one labeller of the mask and refine steps (the second look's
 * surest regions, the solid step's cores).
 */

/** 8-connected regions of the cells where `inside` is set: labels (0 = outside, from 1) and each label's size. */
export function labelRegions(inside: Uint8Array, w: number, h: number): { labels: Int32Array; sizes: number[] } {
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
          if (xx < 0 || xx >= w) continue
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
