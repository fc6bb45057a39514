/**
 * The report `clipdesk process` leaves beside its outputs (format shared with batches, see
 * `../outputs/run-report.ts`): what failed and why, what was skipped (already done, or not an
 * image), and warnings.
 */
import { writeRunReport, type RunReport } from '../outputs/run-report'

export interface ProcessReport extends RunReport {
  counts: { inputs: number; done: number; skipped: number; failed: number; not_images: number; files_written: number }
}

/** Writes both files into `outDir`; returns the path of the readable one. */
export async function writeReport(outDir: string, report: ProcessReport): Promise<string> {
  const c = report.counts
  const summary = `${c.inputs} images: ${c.done} done, ${c.skipped} skipped (already done), ${c.failed} failed; ${c.files_written} files written; ${c.not_images} other files not processed`
  return writeRunReport(outDir, report, 'clipdesk process', summary)
}
