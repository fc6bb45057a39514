/**
 * The model's masks of look-again crops made for the touch-up editor's preview, kept by job, box
 * and model (docs/touch-up.md "Touch-up"): a box costs one model run the first time it is
 * previewed, and every later stroke, undo or redo with it reuses the mask. A few recent entries
 * are kept (a crop's mask is the model's 1024² grid, 1 MiB), least recently used first to go,
 * so that an editor closed and opened again on the same file, or a box undone and redone, does
 * not run the model again.
 */

/** Masks kept: a few boxes of the editor open now and of the one before it. */
export const CROP_MASKS_KEPT = 16

export interface CropKey {
  /** The job whose input the crop is of. */
  job: string
  /** The registry name of the model that made it. */
  model: string
  box: { x: number; y: number; width: number; height: number }
}

export function cropKeyText(k: CropKey): string {
  return `${k.job}\n${k.model}\n${k.box.x},${k.box.y},${k.box.width},${k.box.height}`
}

export class CropMasks<T> {
  private readonly entries = new Map<string, Promise<T>>()

  constructor(private readonly kept = CROP_MASKS_KEPT) {}

  /** The entry for `key`, made by `make` on a miss; a failed make is not kept (the next call tries again). */
  get(key: CropKey, make: () => Promise<T>): Promise<T> {
    const text = cropKeyText(key)
    const found = this.entries.get(text)
    if (found) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(text)
      this.entries.set(text, found)
      return found
    }
    const made = make()
    this.entries.set(text, made)
    made.catch(() => {
      if (this.entries.get(text) === made) this.entries.delete(text)
    })
    while (this.entries.size > this.kept) this.entries.delete(this.entries.keys().next().value!)
    return made
  }

  has(key: CropKey): boolean {
    return this.entries.has(cropKeyText(key))
  }

  get size(): number {
    return this.entries.size
  }
}
