/**
 * The report a run leaves beside its outputs, shared by `clipdesk process` and the app's
 * batches: `clipdesk-report.json` for tools and `clipdesk-report.txt` to read. It lists what
 * failed and why, what was not an image, and warnings, so that a long unattended run can be
 * checked later. Both files are replaced whole (temp name, then rename), so a reader never sees
 * half a report. The readable one shows any control character of a name or message escaped
 * (`src/shared/text.ts`): a report is read in terminals too.
 */
import { join } from 'node:path'
import { escapeControls } from '../../shared/text'
import { writeReplacing } from './place'

/** Names starting with this are a run's own reports, never inputs. */
export const REPORT_PREFIX = 'clipdesk-report.'
export const REPORT_JSON = `${REPORT_PREFIX}json`
export const REPORT_TXT = `${REPORT_PREFIX}txt`

export interface RunReport {
  started_at: string
  finished_at: string
  /** The settings of the run, as given. */
  settings: Record<string, unknown>
  /** Named counts; the first line of the text says what they mean (`summary`). */
  counts: Record<string, number>
  failed: Array<{ input: string; reason: string }>
  not_images: string[]
  warnings: Array<{ input: string; warning: string }>
}

/** The readable report: a title, the settings, a one-line summary, then the lists; one line per entry, whatever they hold. */
export function reportText(title: string, summary: string, r: RunReport): string {
  const lines = [
    `${title} — ${r.started_at} to ${r.finished_at}`,
    `Settings: ${Object.entries(r.settings)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ')}`,
    summary,
    ''
  ]
  if (r.failed.length > 0) lines.push('Failed:', ...r.failed.map((f) => `  ${f.input}: ${f.reason}`), '')
  if (r.not_images.length > 0) lines.push('Not images (skipped):', ...r.not_images.map((f) => `  ${f}`), '')
  if (r.warnings.length > 0) lines.push('Warnings:', ...r.warnings.map((w) => `  ${w.input}: ${w.warning}`), '')
  return lines.map(escapeControls).join('\n')
}

/** Writes both files into `dir`; returns the path of the readable one. */
export async function writeRunReport(dir: string, report: RunReport, title: string, summary: string): Promise<string> {
  await writeReplacing(join(dir, REPORT_JSON), JSON.stringify(report, null, 2) + '\n')
  const txt = join(dir, REPORT_TXT)
  await writeReplacing(txt, reportText(title, summary, report))
  return txt
}
