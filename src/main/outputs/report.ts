/**
 * The report a run leaves beside its outputs, shared by `clipdesk process` and the app's
 * batches: `clipdesk-report.json` for tools and `clipdesk-report.txt` to read. It lists what
 * failed and why, what was not an image, and warnings, so that a long unattended run can be
 * checked later. Each failure is said in plain words (`reason`, src/shared/explain.ts) with the
 * text it came from beside it (`details`), and the first line after the title says how the run
 * ended ("Stopped: 9 done, 35 not started"). Every cutout made is listed with its uncertainty score,
 * most uncertain first, and the text says how many are to check ("3 cutouts to check",
 * docs/review.md). Both files are replaced whole (temp name, then rename), so a reader never sees
 * half a report. The readable one shows any control character of a name or message escaped
 * (`src/shared/text.ts`): a report is read in terminals too.
 */
import { join } from 'node:path'
import { isToCheck, TO_CHECK, toCheckText } from '../../shared/review'
import { escapeControls } from '../../shared/text'
import { describeSettings, type RunSettings } from '../../shared/vocabulary'
import { writeReplacing } from './place'

/** Names starting with this are a run's own reports, never inputs. */
export const REPORT_PREFIX = 'clipdesk-report.'
export const REPORT_JSON = `${REPORT_PREFIX}json`
export const REPORT_TXT = `${REPORT_PREFIX}txt`

export interface RunReport {
  started_at: string
  finished_at: string
  /** The settings of the run, as given (the API's names; the text says them in words). */
  settings: RunSettings
  /** How the run ended, in one line: "Done: all 45 files", "Done with 2 errors", "Stopped: 9 done, 35 not started". */
  outcome: string
  /** Named counts; the text's summary line says what they mean. */
  counts: Record<string, number>
  /** `reason`: in plain words; `details`: the system's or library's text it came from, when it says more. */
  failed: Array<{ input: string; reason: string; details?: string }>
  not_images: string[]
  warnings: Array<{ input: string; warning: string }>
  /** Every cutout made that has a score, most uncertain first (`reportCutouts`). */
  cutouts: ReportCutout[]
}

/** A cutout in a report: its uncertainty score, 0 (sure) to 1 (check this), and whether it is to check (docs/review.md). */
export interface ReportCutout {
  input: string
  uncertainty: number
  to_check: boolean
}

/** The report's cutouts from the files done: those with a score, most uncertain first (then by name, so a report reads the same each time). */
export function reportCutouts(done: ReadonlyArray<{ input: string; uncertainty: number | null }>): ReportCutout[] {
  return done
    .filter((d): d is { input: string; uncertainty: number } => d.uncertainty !== null)
    .map((d) => ({ input: d.input, uncertainty: d.uncertainty, to_check: isToCheck(d.uncertainty) }))
    .sort((a, b) => b.uncertainty - a.uncertainty || (a.input < b.input ? -1 : a.input > b.input ? 1 : 0))
}

/** The readable report: a title, how it ended, the settings, a one-line summary, then the lists; one line per entry, whatever they hold. */
export function reportText(title: string, summary: string, r: RunReport): string {
  const lines = [
    `${title} — ${r.started_at} to ${r.finished_at}`,
    r.outcome,
    `Settings: ${describeSettings(r.settings)}`,
    summary
  ]
  const toCheck = r.cutouts.filter((c) => c.to_check)
  // Said whenever cutouts were made, "0 cutouts to check" included: a reader knows the check was done.
  if (r.cutouts.length > 0) lines.push(`${toCheckText(toCheck.length)} (uncertainty ≥ ${TO_CHECK}: look at them first)`)
  lines.push('')
  if (toCheck.length > 0) lines.push('To check (most uncertain first):', ...toCheck.map((c) => `  ${c.input}: ${c.uncertainty.toFixed(3)}`), '')
  if (r.failed.length > 0) {
    lines.push('Failed:')
    for (const f of r.failed) {
      lines.push(`  ${f.input}: ${f.reason}`)
      // The original text, folded onto one line: a report is read line by line.
      if (f.details) lines.push(`    details: ${f.details.split('\n').join(' | ')}`)
    }
    lines.push('')
  }
  if (r.not_images.length > 0) lines.push('Not images (skipped):', ...r.not_images.map((f) => `  ${f}`), '')
  if (r.warnings.length > 0) lines.push('Warnings:', ...r.warnings.map((w) => `  ${w.input}: ${w.warning}`), '')
  return lines.map(escapeControls).join('\n')
}

/** Writes both files into `dir`; returns the path of the readable one. */
export async function writeRunReport(dir: string, report: RunReport, title: string, summary: string): Promise<string> {
  await writeReplacing(join(dir, REPORT_JSON), JSON.stringify(report, null, 2) + '\n')
  const txt = join(dir, REPORT_TXT)
  await writeReplacing(txt, reportText(title, summary, report) + '\n')
  return txt
}
