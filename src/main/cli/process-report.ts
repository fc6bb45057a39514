/**
 * The report `clipdesk process` leaves beside its outputs: `clipdesk-report.json` for tools
 * and `clipdesk-report.txt` to read. It lists what failed and why, what was skipped (already
 * done, or not an image), and warnings, so that a long unattended run can be checked later.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export interface ProcessReport {
  started_at: string
  finished_at: string
  /** The settings of the run, as given. */
  settings: Record<string, unknown>
  counts: { inputs: number; done: number; skipped: number; failed: number; not_images: number; files_written: number }
  failed: Array<{ input: string; reason: string }>
  not_images: string[]
  warnings: Array<{ input: string; warning: string }>
}

function text(r: ProcessReport): string {
  const c = r.counts
  const lines = [
    `clipdesk process — ${r.started_at} to ${r.finished_at}`,
    `Settings: ${Object.entries(r.settings)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ')}`,
    `${c.inputs} images: ${c.done} done, ${c.skipped} skipped (already done), ${c.failed} failed; ${c.files_written} files written; ${c.not_images} other files not processed`,
    ''
  ]
  if (r.failed.length > 0) lines.push('Failed:', ...r.failed.map((f) => `  ${f.input}: ${f.reason}`), '')
  if (r.not_images.length > 0) lines.push('Not images (skipped):', ...r.not_images.map((f) => `  ${f}`), '')
  if (r.warnings.length > 0) lines.push('Warnings:', ...r.warnings.map((w) => `  ${w.input}: ${w.warning}`), '')
  return lines.join('\n')
}

/** Writes both files into `outDir`; returns the path of the readable one. */
export async function writeReport(outDir: string, report: ProcessReport): Promise<string> {
  await writeFile(join(outDir, 'clipdesk-report.json'), JSON.stringify(report, null, 2) + '\n')
  const txt = join(outDir, 'clipdesk-report.txt')
  await writeFile(txt, text(report))
  return txt
}
