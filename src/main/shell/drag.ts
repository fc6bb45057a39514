/**
 * Dragging a result out of the window into another application (Electron's
 * `webContents.startDrag`): the renderer's dragstart sends the result's target; the file's path
 * is resolved and checked by the app API (a written, plain file of a done item), never taken
 * from the renderer. No Electron import, so it is tested where Electron cannot run.
 */
import type { ResultTarget } from '../../shared/results'
import { errorText } from '../../shared/errors'

/** The part of Electron's IpcMainEvent this needs. */
export interface DragEvent {
  sender: { startDrag(item: { file: string; icon: unknown }): void }
}

export interface DragDeps {
  /** Only our window's main frame may start a drag. */
  trusted(event: DragEvent): boolean
  /** The checked path of the target (throws when it is not a written plain file). */
  resolve(target: ResultTarget): Promise<string>
  /** The picture under the cursor: the file itself when it is small enough to show, else the app's icon. */
  icon(path: string): unknown
  /** Where a refused drag is said (the console: a drag has no answer to carry an error). */
  refused(message: string): void
}

export function dragHandler(deps: DragDeps): (event: DragEvent, target: ResultTarget) => Promise<void> {
  return async (event, target) => {
    if (!deps.trusted(event)) return deps.refused('refused: not the app window')
    let file: string
    try {
      file = await deps.resolve(target)
    } catch (err) {
      return deps.refused(`the result cannot be dragged: ${errorText(err)}`)
    }
    event.sender.startDrag({ file, icon: deps.icon(file) })
  }
}
