/**
 * Results that leave the app, from the renderer: Open with… and Show in folder (the app), a drag
 * out of the window (the app), a download of one file or of the whole batch as a zip (the
 * browser app, from signed addresses the server gives). What went wrong is said in the batch's
 * notice line, like the output folder's.
 */
import type { ResultTarget } from '../../../shared/results'
import { useStore } from '../store'
import { errorText, transport } from '../transport'

function notice(message: string | null): void {
  useStore.setState({ outputNotice: message })
}

/** Starts a browser download of a same-origin address (the answer streams to disk). */
function download(url: string, name: string): void {
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
}

export async function openResultWith(target: ResultTarget): Promise<void> {
  try {
    const r = await transport().resultOpenWith(target)
    notice(r.opened ? null : `${r.error ?? 'It could not be opened'} (${r.path})`)
  } catch (err) {
    notice(errorText(err))
  }
}

export async function showResultInFolder(target: ResultTarget): Promise<void> {
  try {
    await transport().resultShowInFolder(target)
    notice(null)
  } catch (err) {
    notice(errorText(err))
  }
}

export async function downloadResult(target: ResultTarget): Promise<void> {
  try {
    const d = await transport().resultDownload(target)
    download(d.url, d.name)
  } catch (err) {
    notice(errorText(err))
  }
}

export async function downloadBatch(batchId: string): Promise<void> {
  try {
    const d = await transport().batchDownload(batchId)
    download(d.url, d.name)
  } catch (err) {
    notice(errorText(err))
  }
}

/** A result's drag out of the window: the app hands the file itself to the system's drag. */
export function startResultDrag(event: React.DragEvent, target: ResultTarget): void {
  const t = transport()
  if (!t.startDrag) return
  event.preventDefault()
  t.startDrag(target)
}
