/** Shared pieces of the batch service tests: the plain request, preview addresses, and waiting on events. */
import type { BatchSummary } from '../../src/shared/batches'
import type { BatchService } from '../../src/main/batches/service'

export const CLIPPING = { mode: 'clipping' as const, output_format: 'png' as const, params: null }

/** Preview addresses as a transport would make them; the tests only compare them. */
export const address = (id: string, kind: string, v: string): string => `test://${id}/${kind}?v=${v}`

/** Resolves when the batch's summary satisfies `pred` (driven by the service's events, no polling). */
export function until(service: BatchService, batchId: string, pred: (s: BatchSummary) => boolean): Promise<BatchSummary> {
  return new Promise((resolve) => {
    const check = (): void => {
      const s = service.summary(batchId)
      if (pred(s)) {
        service.off('batch', on)
        resolve(s)
      }
    }
    const on = (id: string): void => {
      if (id === batchId) check()
    }
    service.on('batch', on)
    check()
  })
}

/** No file left to run. */
export const settled = (s: BatchSummary): boolean => s.counts.total > 0 && s.counts.waiting + s.counts.running === 0
