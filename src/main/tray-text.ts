/**
 * The queue as the tray icon and its menu say it: what runs and waits, and once the queue is
 * empty how the latest batch ended, in the words of every other screen ("Stopped: 9 done,
 * 35 not started", "Done with 2 errors"; `batchOutcome`), never a bare "queue empty" after a
 * batch whose files failed.
 */
import { batchOutcome, type BatchSummary } from '../shared/batches'

export interface QueueText {
  tooltip: string
  /** The menu entry that shows the Batches screen. */
  menu: string
}

export function queueText(queue: { running: number; waiting: number }, latest: BatchSummary | null): QueueText {
  if (queue.running + queue.waiting > 0) {
    const what = `${queue.running} running, ${queue.waiting} waiting`
    return { tooltip: `Clipdesk — ${what}`, menu: `Show queue (${what})` }
  }
  const outcome = latest ? batchOutcome(latest) : null
  if (!outcome || outcome.kind === 'empty' || outcome.kind === 'running') return { tooltip: 'Clipdesk — queue empty', menu: 'Show batches' }
  return { tooltip: `Clipdesk — queue empty · last batch: ${outcome.title}`, menu: `Show batches (last: ${outcome.title})` }
}
