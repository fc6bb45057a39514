import { splitForMiddle, NAME_TAIL } from '../lib/middle'

/**
 * A name on one line cut in its middle when space is short ("animal-portr…-large.jpg"): the
 * start gives way with an ellipsis, the end and the extension always show (lib/middle.ts). The
 * whole name is its text (read aloud, copied, found by a search) and its tooltip.
 */
export function MiddleEllipsis(props: {
  text: string
  className?: string
  /** A folder path: its last folder is kept whole where it can be. */
  folder?: boolean
  testId?: string
}): React.JSX.Element {
  const { head, tail } = splitForMiddle(props.text, NAME_TAIL, props.folder ?? false)
  return (
    <span className={`middle-ellipsis ${props.className ?? ''}`} title={props.text} data-testid={props.testId}>
      <span className="middle-head">{head}</span>
      <span className="middle-tail">{tail}</span>
    </span>
  )
}
