/** Temporary: foreground variants on a fixed alpha (measurement only). */
import { knownMeans } from '../src/main/engine/pipeline/blur-fusion'
import type { Cutout } from './quality-metrics'
import type { Scene } from './quality-scenes'

export function experiments(scene: Scene, outAlpha: Buffer, tag: string): Record<string, Cutout> {
  const { width, height } = scene
  const n = width * height
  const img = { data: scene.image, width, height, channels: 4 }
  const out: Record<string, Cutout> = {}
  for (const r of [8, 20]) {
    const m = knownMeans(img, outAlpha, r)
    const B = Float32Array.from(m.bg)
    const Fm = Float32Array.from(m.fg)
    const variant = (name: string, alphaF: (i: number) => number, useTruth = false): void => {
      const fg = Buffer.from(scene.image)
      for (let i = 0; i < n; i++) {
        const a = useTruth ? scene.alpha[i]! / 255 : alphaF(i)
        for (let c = 0; c < 3; c++) {
          const I = scene.image[i * 4 + c]! / 255
          const b = B[i * 3 + c]!
          let v = a > 0.02 ? b + (I - b) / a : Fm[i * 3 + c]!
          v = v < 0 ? 0 : v > 1 ? 1 : v
          fg[i * 4 + c] = Math.round(v * 255)
        }
      }
      out[`${tag}/r${r}/${name}`] = { alpha: outAlpha, foreground: fg }
    }
    variant('oracle', () => 0, true)
    variant('same', (i) => outAlpha[i]! / 255)
    variant('sqrt', (i) => Math.sqrt(outAlpha[i]! / 255))
    variant('pow0.3', (i) => Math.pow(outAlpha[i]! / 255, 0.3))
    variant('colourline', (i) => {
      let num = 0
      let den = 0
      for (let c = 0; c < 3; c++) {
        const I = scene.image[i * 4 + c]! / 255
        const b = B[i * 3 + c]!
        const f = Fm[i * 3 + c]!
        num += (I - b) * (f - b)
        den += (f - b) * (f - b)
      }
      const a = outAlpha[i]! / 255
      if (den < 0.01) return Math.sqrt(a)
      return Math.min(1, Math.max(Math.sqrt(a) * 0.5, num / den))
    })
  }
  return out
}
