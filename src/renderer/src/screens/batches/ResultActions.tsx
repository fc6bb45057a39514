import type { BatchItemView } from '../../../../shared/batches'
import { downloadResult, openResultWith, showResultInFolder } from '../../lib/results'
import { useStore } from '../../store'

/**
 * A done file's ways out of the app: Open with… and Show in folder in the desktop app (its
 * thumbnail can also be dragged into another application), Download in the browser app.
 */
export function ResultActions({ item }: { item: BatchItemView }): React.JSX.Element | null {
  const info = useStore((s) => s.appInfo)
  if (item.state !== 'done' || item.outputs.length === 0 || !info) return null
  const target = { batch_id: item.batch_id, item_id: item.id, output: 0 }
  return (
    <>
      {info.canOpenWith && (
        <button
          type="button"
          className="btn small"
          onClick={() => void openResultWith(target)}
          aria-label={`Open ${item.name}'s result with…`}
          data-testid="open-with"
        >
          Open with…
        </button>
      )}
      {info.canOpenWith && (
        <button
          type="button"
          className="btn small"
          onClick={() => void showResultInFolder(target)}
          aria-label={`Show ${item.name}'s result in its folder`}
          data-testid="show-in-folder"
        >
          Show
        </button>
      )}
      {info.canDownload && (
        <button
          type="button"
          className="btn small"
          onClick={() => void downloadResult(target)}
          aria-label={`Download ${item.name}'s result`}
          data-testid="download-result"
        >
          Download
        </button>
      )}
    </>
  )
}
