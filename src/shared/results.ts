/**
 * Results that leave the app: one written file of a batch item (`ResultTarget`), opened with
 * another application, shown in its folder, dragged out of the window, or — in the browser app —
 * downloaded; a whole batch downloaded as one zip. docs/batches.md "Results that leave the app".
 */
import { z } from 'zod'

export const resultTargetSchema = z.strictObject({
  batch_id: z.string().min(1).max(64),
  item_id: z.string().min(1).max(64),
  /** Which of the item's written files (`BatchItemView.outputs`), from 0. */
  output: z.number().int().min(0).max(63).default(0)
})
export type ResultTarget = z.input<typeof resultTargetSchema>

/** A download's address (same origin, signed: a link or `<a download>` fetches it without the key) and its file name. */
export interface ResultDownload {
  url: string
  name: string
}
