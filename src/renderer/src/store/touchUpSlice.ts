import type { TouchUpTarget } from '../../../shared/touchup'
import { boxesOf, hintPng, strokesOf, type Edit } from '../lib/brush'
import { errorText, transport } from '../transport'
import type { TouchUpState, TouchUpSlice, Slice } from './types'

const png = (base64: string): string => `data:image/png;base64,${base64}`

/** One text per file touched up, whichever feature it is of. */
export function touchUpKey(target: TouchUpTarget): string {
  return target.kind === 'batch' ? `batch:${target.item_id}` : `watch:${target.folder_id}:${target.file_id}`
}

export const createTouchUpSlice: Slice<TouchUpSlice> = (set, get) => {
  /** The edits the shown preview was made for; one preview at a time, the latest edits win. */
  let shown: Edit[] | null = null
  /** Look-again boxes the app has run the model on this session (their crops' masks are kept there). */
  let looked = new Set<string>()
  let running = false

  const patch = (p: Partial<TouchUpState>, key: string): void => {
    const t = get().touchUp
    if (t && t.key === key) set({ touchUp: { ...t, ...p } })
  }

  async function refresh(): Promise<void> {
    if (running) return
    running = true
    try {
      for (;;) {
        const t = get().touchUp
        if (!t?.preview || t.strokes === shown) return
        const edits = t.strokes
        const strokes = strokesOf(edits)
        const regions = boxesOf(edits)
        const keys = regions.map((b) => `${b.x},${b.y},${b.width},${b.height}`)
        patch({ updating: true, looking: keys.some((k) => !looked.has(k)) }, t.key)
        const scale = t.preview.width / t.size!.width
        const hint = strokes.length > 0 ? await hintPng(strokes, t.preview.width, t.preview.height, scale) : undefined
        const res = await transport().touchUpPreview({
          target: t.target,
          ...(hint ? { hint } : {}),
          ...(regions.length ? { regions } : {})
        })
        shown = edits
        for (const k of keys) looked.add(k)
        const more = get().touchUp?.strokes !== edits
        patch(
          { cutout: png(res.png), lastMs: res.ms, updating: more, looking: more && get().touchUp?.looking === true, error: null },
          t.key
        )
      }
    } catch (err) {
      const t = get().touchUp
      if (t) patch({ updating: false, looking: false, error: errorText(err) }, t.key)
    } finally {
      running = false
    }
  }

  return {
    touchUp: null,

    async openTouchUp(target, name) {
      const key = touchUpKey(target)
      shown = null
      looked = new Set()
      set({
        touchUp: {
          target,
          key,
          name,
          size: null,
          preview: null,
          photo: null,
          cutout: null,
          strokes: [],
          undone: [],
          updating: true,
          looking: false,
          lastMs: null,
          saving: false,
          saved: null,
          error: null
        }
      })
      try {
        const res = await transport().touchUpPreview({ target })
        shown = get().touchUp?.strokes ?? null
        patch(
          {
            size: { width: res.width, height: res.height },
            preview: res.preview,
            photo: png(res.photo ?? res.png),
            cutout: png(res.png),
            lastMs: res.ms,
            updating: false
          },
          key
        )
        void refresh() // strokes painted while it opened
      } catch (err) {
        patch({ updating: false, error: errorText(err) }, key)
      }
    },

    closeTouchUp() {
      shown = null
      set({ touchUp: null })
    },

    addStroke(edit) {
      const t = get().touchUp
      if (!t || t.saving) return
      set({ touchUp: { ...t, strokes: [...t.strokes, edit], undone: [], saved: null } })
      void refresh()
    },

    undoStroke() {
      const t = get().touchUp
      if (!t || t.saving || t.strokes.length === 0) return
      set({ touchUp: { ...t, strokes: t.strokes.slice(0, -1), undone: [...t.undone, t.strokes.at(-1)!], saved: null } })
      void refresh()
    },

    redoStroke() {
      const t = get().touchUp
      if (!t || t.saving || t.undone.length === 0) return
      set({ touchUp: { ...t, strokes: [...t.strokes, t.undone.at(-1)!], undone: t.undone.slice(0, -1), saved: null } })
      void refresh()
    },

    async saveTouchUp() {
      const t = get().touchUp
      if (!t?.size || t.saving || t.strokes.length === 0) return
      patch({ saving: true, error: null }, t.key)
      try {
        // The boxes at the input's own pixels: the saved job runs the model on the same crops the preview did.
        const hint = await hintPng(strokesOf(t.strokes), t.size.width, t.size.height, 1)
        const regions = boxesOf(t.strokes)
        const saved = await transport().touchUp({ target: t.target, hint, ...(regions.length ? { regions } : {}) })
        patch({ saving: false, saved }, t.key)
      } catch (err) {
        patch({ saving: false, error: errorText(err) }, t.key)
      }
    }
  }
}
