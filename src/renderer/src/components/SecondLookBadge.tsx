import type { SecondLook } from '../../../shared/params-types'
import { SECOND_LOOK_LABEL, secondLookText } from '../../../shared/second-look'

/** A done file's "Second look" label (docs/pipeline.md "Second look"), its views and reason in the title; nothing when it got none. */
export function SecondLookBadge({ look }: { look: SecondLook | null | undefined }): React.JSX.Element | null {
  if (!look) return null
  return (
    <span
      className="badge review"
      data-testid="second-look-badge"
      data-reason={look.reason}
      title={`The model looked again: ${secondLookText(look)}`}
    >
      {SECOND_LOOK_LABEL}
    </span>
  )
}
