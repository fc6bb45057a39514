/** Short human texts for numbers the screens show. */

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

export function formatDate(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * Throughput and time left of a batch from its counts, over the files that ran (done or
 * failed): files stopped or never started took no time and are not in the rate. Null until one
 * file has run.
 */
export function batchPace(
  counts: { total: number; done: number; failed: number; cancelled: number },
  startedAt: number | null,
  now: number
): { perMinute: number; etaMs: number } | null {
  const ran = counts.done + counts.failed
  if (startedAt === null || ran === 0 || now <= startedAt) return null
  const perMs = ran / (now - startedAt)
  return { perMinute: perMs * 60_000, etaMs: Math.max(0, counts.total - ran - counts.cancelled) / perMs }
}

/**
 * How a batch with files left stands while the server cannot be reached ("Clipdesk stopped:
 * 9 of 15 done, 6 left"): nothing is known to run then, so it is not called running. Null when
 * the server answers or nothing is left.
 */
export function stoppedTitle(counts: { done: number; waiting: number; running: number }, total: number, live: boolean): string | null {
  const left = counts.waiting + counts.running
  return live || left === 0 ? null : `Clipdesk stopped: ${counts.done} of ${total} done, ${left} left`
}

/**
 * "medium · cpu": the model and the device that ran a job (the device after any fallback to the
 * CPU, whose reason is among the warnings); null when not recorded (results of older versions).
 */
export function ranOnText({ model, device }: { model: string | null; device: string | null }): string | null {
  const parts = [model, device].filter((p): p is string => Boolean(p))
  return parts.length > 0 ? parts.join(' · ') : null
}
