import { memo, useMemo, useRef } from 'react'
import { useShallow } from 'zustand/react/shallow'
import type { BatchItemView } from '../../../../shared/batches'
import { REVIEW_LEVEL_LABELS, TOUCHED_UP_LABEL } from '../../../../shared/review'
import { TO_CHECK_LABEL } from '../../../../shared/vocabulary'
import { ranOnText } from '../../lib/format'
import { filterCounts, listOrder, type ListFilter } from '../../lib/review'
import { useWindowedRows } from '../../lib/virtual'
import { useStore } from '../../store'
import { startResultDrag } from '../../lib/results'
import { ResultActions } from './ResultActions'
import { ProgressBar, type Tone } from '../../components/common'
import { ReviewBadge } from '../../components/ReviewBadge'
import { MiddleEllipsis } from '../../components/MiddleEllipsis'
import { StoreBadge } from '../../components/StoreBadge'
import { SecondLookBadge } from '../../components/SecondLookBadge'

/** A file row's height: set on each row here (not in batches.css) so that the windowing counts with the same number. */
const ROW_HEIGHT = 64

const STATUS_TEXT: Record<BatchItemView['status'], string> = {
  waiting: 'Waiting',
  queued: 'Queued',
  fetching: 'Fetching',
  segmenting: 'Cutting out',
  pending_compose: 'Composing',
  encoding: 'Writing',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Stopped'
}

function statusText(item: BatchItemView): string {
  if (item.not_image) return 'Not an image'
  if (item.status === 'cancelled' && item.started_at === null) return 'Not started'
  return STATUS_TEXT[item.status]
}

const TONE: Record<BatchItemView['state'], Tone> = { pending: 'running', done: 'done', failed: 'failed', cancelled: 'stopped' }

/**
 * The lines of a row under its name (exported for their test): the folder and what it wrote, or
 * why it failed (with its details) or why the last try failed; then, on a line of its own, its
 * first warning in its own words (the others counted after it, all of them in the tooltip).
 */
export function RowLine({ item, folder }: { item: BatchItemView; folder: string }): React.JSX.Element {
  const { setProblem } = useStore.getState()
  const problem = item.error !== null && item.state !== 'done'
  let text: React.JSX.Element | null = null
  if (problem) {
    // While a retry runs, the last try's problem stays visible until the new result.
    const words = item.state === 'pending' ? `Retrying; last try: ${item.error}` : item.error
    text = (
      <span className={`text ${item.state === 'pending' ? 'warn' : 'field-error'}`} title={item.error ?? ''} data-testid="item-error">
        {words}
      </span>
    )
  } else if (item.state === 'done') {
    text = (
      <span className="written">
        {item.outputs.length} file{item.outputs.length === 1 ? '' : 's'} written
      </span>
    )
  }
  // A problem takes the whole line (the folder is in the row's tooltip); otherwise the folder leads.
  const showFolder = folder !== '' && !problem
  return (
    <>
      <div className="muted small line">
        {showFolder && <MiddleEllipsis className="folder" text={folder} folder testId="item-folder" />}
        {showFolder && text && <span aria-hidden="true">·</span>}
        {text}
        {problem && item.error_detail && (
          <button
            type="button"
            className="btn small"
            onClick={() => setProblem(item.id)}
            aria-label={`Details of the problem with ${item.name}`}
            data-testid="item-error-details"
          >
            Details
          </button>
        )}
      </div>
      {!problem && item.warnings.length > 0 && (
        <div className="small line">
          <span className="text warn" title={item.warnings.join('\n')} data-testid="item-warning">
            ⚠ {item.warnings[0]}
          </span>
          {item.warnings.length > 1 && (
            <span className="more warn" title={item.warnings.join('\n')}>
              +{item.warnings.length - 1} more
            </span>
          )}
        </div>
      )}
    </>
  )
}

/** `pos`: the row's place in the list as shown; `index`: the item's place in the batch. */
const Row = memo(function Row({ pos, index, usual }: { pos: number; index: number; usual: string | null }): React.JSX.Element | null {
  const item = useStore((s) => s.items[index])
  if (!item) return null
  const { setViewer, cancelBatch, retryBatch, openOutput } = useStore.getState()
  const folder = item.rel_path.includes('/') ? item.rel_path.slice(0, item.rel_path.lastIndexOf('/')) : ''
  // The model and device are shown on a row only where they differ from the rest of the batch
  // (a fallback to the CPU, another model); the before/after view always says them.
  const ranOn = item.state === 'done' ? ranOnText(item) : null
  const tone = TONE[item.state]
  return (
    <tr
      className="vrow"
      aria-rowindex={pos + 1}
      style={{ top: pos * ROW_HEIGHT, height: ROW_HEIGHT }}
      data-testid="batch-item"
      data-state={item.not_image ? 'not-image' : item.state}
    >
      <td>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: dragging the thumbnail out is a pointer shortcut; the row's Open with…, Show and Download buttons reach the same file from the keyboard */}
        <img
          className="thumb"
          src={item.thumb_url}
          alt=""
          loading="lazy"
          decoding="async"
          onError={(e) => (e.currentTarget.style.visibility = 'hidden')}
          // In the app a done file's thumbnail drags the result itself into another application.
          draggable={item.state === 'done' && item.outputs.length > 0}
          onDragStart={(e) => startResultDrag(e, { batch_id: item.batch_id, item_id: item.id, output: 0 })}
        />
      </td>
      <td className="shrink" title={item.rel_path}>
        <MiddleEllipsis className="name" text={item.name} testId="item-name" />
        <RowLine item={item} folder={folder} />
        {item.state === 'pending' && (
          <div className="inline-progress">
            <ProgressBar value={item.progress} label={`Progress of ${item.name}`} thin tone={tone} />
          </div>
        )}
      </td>
      <td className="states">
        <span className={`badge ${item.state}`} data-testid="item-status">
          {statusText(item)}
        </span>
        {item.state === 'done' && <ReviewBadge uncertainty={item.uncertainty} touchUps={item.touch_ups} />}
        {item.state === 'done' && <StoreBadge checks={item.checks} />}
        {item.state === 'done' && <SecondLookBadge look={item.second_look} />}
        {ranOn && ranOn !== usual && (
          <div className="muted small ran-on" data-testid="item-device" title={`The model and the device that ran it: ${ranOn}`}>
            {ranOn}
          </div>
        )}
      </td>
      <td className="progress-cell">
        {!item.not_image && <ProgressBar value={item.progress} label={`Progress of ${item.name}`} thin tone={tone} />}
      </td>
      <td className="actions">
        {item.state === 'done' && (
          <button
            type="button"
            className="btn small"
            onClick={() => setViewer(item.id)}
            aria-label={`Before and after of ${item.name}`}
            data-testid="open-viewer"
          >
            Before/after
          </button>
        )}
        {item.state === 'done' && (
          <button
            type="button"
            className="btn small"
            onClick={() => void useStore.getState().openTouchUp({ kind: 'batch', batch_id: item.batch_id, item_id: item.id }, item.name)}
            aria-label={`Touch up ${item.name}`}
            data-testid="touch-up"
          >
            Touch up
          </button>
        )}
        {item.state === 'done' && (
          <button
            type="button"
            className="btn small"
            onClick={() => void openOutput(item.id)}
            aria-label={`Open the folder of ${item.name}`}
            data-testid="open-item-folder"
          >
            Folder
          </button>
        )}
        <ResultActions item={item} />
        {item.state === 'pending' && (
          <button type="button" className="btn small" onClick={() => void cancelBatch(item.id)} aria-label={`Cancel ${item.name}`}>
            Cancel
          </button>
        )}
        {(item.state === 'failed' || item.state === 'cancelled') && !item.not_image && (
          <button
            type="button"
            className="btn small"
            onClick={() => void retryBatch(item.id)}
            aria-label={`Retry ${item.name}`}
            data-testid="retry-item"
          >
            Retry
          </button>
        )}
      </td>
    </tr>
  )
})

/** The model and device most of the batch's done files ran on (what a row need not repeat). */
function usualRanOn(items: BatchItemView[]): string | null {
  const seen = new Map<string, number>()
  for (const item of items) {
    const text = item.state === 'done' ? ranOnText(item) : null
    if (text) seen.set(text, (seen.get(text) ?? 0) + 1)
  }
  let best: string | null = null
  for (const [text, n] of seen) if (best === null || n > seen.get(best)!) best = text
  return best
}

/** The filters after "All files": to check (either level), each level, touched up; each with its count. */
const FILTERS: Array<[Exclude<ListFilter, 'all'>, string]> = [
  ['to-check', TO_CHECK_LABEL],
  ['likely-wrong', REVIEW_LEVEL_LABELS.likely_wrong],
  ['worth-a-look', REVIEW_LEVEL_LABELS.worth_a_look],
  ['touched-up', TOUCHED_UP_LABEL],
  ['not-ready', 'Not ready']
]

/** The list's filter ("All files" / "To check (3)" / "Likely wrong (1)" / …) and order (as added / most uncertain first). */
function ListTools({ counts }: { counts: Record<Exclude<ListFilter, 'all'>, number> }): React.JSX.Element {
  const { filter, sort } = useStore(useShallow((s) => ({ filter: s.listFilter, sort: s.listSort })))
  const { setListView } = useStore.getState()
  return (
    <div className="list-tools" data-testid="list-tools">
      <fieldset className="segmented">
        <legend className="sr-only">Show</legend>
        <button type="button" className="btn small" aria-pressed={filter === 'all'} onClick={() => setListView({ filter: 'all' })}>
          All files
        </button>
        {FILTERS.map(([f, label]) =>
          // A level with no file is left out, unless it is the filter in use (so it can be seen and left).
          counts[f] > 0 || filter === f || f === 'to-check' ? (
            <button
              key={f}
              type="button"
              className="btn small"
              aria-pressed={filter === f}
              onClick={() => setListView({ filter: f })}
              data-testid={`filter-${f}`}
            >
              {label} ({counts[f]})
            </button>
          ) : null
        )}
      </fieldset>
      <label className="small muted">
        Order{' '}
        <select
          value={sort}
          onChange={(e) => setListView({ sort: e.target.value === 'uncertainty' ? 'uncertainty' : 'added' })}
          data-testid="list-sort"
        >
          <option value="added">As added</option>
          <option value="uncertainty">Most uncertain first</option>
        </select>
      </label>
    </div>
  )
}

/** The files of the current batch: a windowed list, so thousands of rows stay light; filtered and ordered as the tools say. */
export function ItemList(): React.JSX.Element {
  const { items, filter, sort } = useStore(useShallow((s) => ({ items: s.items, filter: s.listFilter, sort: s.listSort })))
  const order = useMemo(() => listOrder(items, filter, sort), [items, filter, sort])
  const counts = useMemo(() => filterCounts(items), [items])
  const count = order.length
  const usual = useMemo(() => usualRanOn(items), [items])
  const ref = useRef<HTMLElement>(null)
  const { start, end } = useWindowedRows(ref, ROW_HEIGHT, count)
  const rows: React.JSX.Element[] = []
  for (let pos = start; pos < end; pos++) rows.push(<Row key={order[pos]} pos={pos} index={order[pos]!} usual={usual} />)
  return (
    <>
      <ListTools counts={counts} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the list scrolls on its own, so it takes focus for the keyboard to scroll it; dialogs opened from a row give focus back to it */}
      <section className="vlist" ref={ref} aria-label="Files of the batch" tabIndex={0} data-testid="item-list">
        {count === 0 && filter !== 'all' && (
          <p className="muted small vlist-note" data-testid="none-to-check">
            {filter === 'touched-up'
              ? 'No file touched up yet.'
              : filter === 'not-ready'
                ? 'No file is Not ready for its store.'
                : `No cutouts to check${items.some((i) => i.state === 'pending') ? ' yet' : ''}.`}
          </p>
        )}
        <table className="vtable" aria-label="Files of the batch" aria-rowcount={count}>
          <tbody style={{ height: count * ROW_HEIGHT }}>{rows}</tbody>
        </table>
      </section>
    </>
  )
}
