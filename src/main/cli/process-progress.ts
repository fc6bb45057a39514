/**
 * The progress line of `clipdesk process`. It says "Loading the model…" until the first photo
 * is being worked on, then a bar that counts only photos finished (written or failed): a photo
 * stopped by Ctrl-C, or one handed to the engine and still waiting, is not progress. The time
 * left is said once a photo has finished (before that any estimate would be a guess, and
 * cli-progress's own says "0s left").
 */
import { Presets, SingleBar } from 'cli-progress'
import { escapeControls } from '../../shared/text'
import { say } from './print'

/** `1 min 20 s`, `45 s`, `2 h 5 min`: rounded to what a person waiting reads. */
export function timeLeft(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`
}

export class ProcessProgress {
  private readonly bar = new SingleBar(
    { format: '{bar} {percentage}% | {value}/{total} images | {left} | {file}', hideCursor: true },
    Presets.shades_classic
  )
  private shown = false
  private closed = false
  private finished = 0
  private startedAt = 0

  constructor(private readonly total: number) {}

  /** Said when the command starts working (the model loads while the first photos are read). */
  loading(): void {
    say('Loading the model…')
  }

  /** The first photo is being worked on: from now on the bar stands for the run. */
  photoStarted(): void {
    if (this.shown || this.closed) return
    this.shown = true
    this.startedAt = Date.now()
    this.bar.start(this.total, this.finished, { file: '', left: this.left() })
  }

  /** A photo was written or failed (never one stopped by Ctrl-C). */
  photoFinished(file: string): void {
    this.finished++
    if (!this.shown) this.photoStarted()
    else this.bar.update(this.finished, { file: escapeControls(file), left: this.left() })
  }

  /** Ends the bar (before the summary is printed). */
  close(): void {
    this.closed = true
    if (this.shown) this.bar.stop()
  }

  private left(): string {
    const remaining = this.total - this.finished
    if (remaining <= 0) return 'done'
    if (this.finished === 0) return 'estimating the time left'
    const perPhoto = (Date.now() - this.startedAt) / 1000 / this.finished
    return `about ${timeLeft(perPhoto * remaining)} left`
  }
}
