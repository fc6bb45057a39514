/**
 * Touch-up of a done file of a batch or of a watched folder (docs/touch-up.md "Touch-up"): the
 * editor's preview and Save.
 * Images travel as base64 PNG text, so that the same argument crosses IPC and the app
 * bridge's JSON alike.
 */
import { z } from 'zod'
import { regionsSchema } from './regions'

/** The longest side of the editor's preview, in pixels. */
export const TOUCHUP_PREVIEW_EDGE = 1024
/** A hint as base64 text: 8 MB of PNG at most (the bridge's body limit holds it with room). */
const MAX_HINT_BASE64 = Math.ceil((6 * 1024 * 1024 * 4) / 3)

const base64Png = z
  .string()
  .min(1, 'expected a PNG as base64 text')
  .max(MAX_HINT_BASE64, 'the hint is larger than 6 MB')
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64 text')

/** The done file touched up: a batch's item, or a watched folder's file. */
export const touchUpTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('batch'), batch_id: z.string().min(1).max(64), item_id: z.string().min(1).max(64) }),
  z.object({ kind: z.literal('watch'), folder_id: z.string().min(1).max(64), file_id: z.number().int().positive() })
])
export type TouchUpTarget = z.infer<typeof touchUpTargetSchema>

/**
 * A preview of the cutout with the strokes so far. `hint`: the strokes at the preview's size
 * (`TouchUpPreview.preview`), white keep, black remove, grey the model's; absent: no strokes.
 */
export const touchUpPreviewSchema = z.object({ target: touchUpTargetSchema, hint: base64Png.optional(), regions: regionsSchema.optional() })
export type TouchUpPreviewRequest = z.infer<typeof touchUpPreviewSchema>

/**
 * Save: the strokes at the input's upright size (`TouchUpPreview.width` × `height`). `regions`
 * (in a preview too): look-again boxes in the input's upright pixels (docs/touch-up.md "Look again").
 */
export const touchUpSaveSchema = z.object({ target: touchUpTargetSchema, hint: base64Png, regions: regionsSchema.optional() })
export type TouchUpSaveRequest = z.infer<typeof touchUpSaveSchema>

export interface TouchUpPreview {
  /** The input's size after its orientation: a saved hint's size. */
  width: number
  height: number
  /** The preview's size (the input scaled to at most `TOUCHUP_PREVIEW_EDGE` on its long side): a preview hint's size. */
  preview: { width: number; height: number }
  /** The cutout at the preview's size, RGBA PNG, base64. */
  png: string
  /** The photo at the preview's size, PNG, base64 (for before/after): only in the answer to a request without a hint. */
  photo?: string
  /** Milliseconds this preview took in the app (the hint's decode, the refine, the encode). */
  ms: number
}

export interface TouchUpResult {
  /** The files replaced in the destination (the file's outputs), in order. */
  outputs: string[]
  /** Where each one's previous version was kept, in the same order. */
  previous: string[]
  /** How many times this file has been touched up, this one included. */
  touch_ups: number
}
