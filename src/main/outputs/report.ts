/**
 * The report a run leaves beside its outputs, shared by `clipdesk process` and the app's
 * batches: `clipdesk-report.json` for tools and `clipdesk-report.txt` to read. It lists what
 * failed and why, what was not an image, and warnings, so that a long unattended run can be
 * checked later. Each failure is said in plain words (`reason`, src/shared/explain.ts) with the
 * text it came from beside it (`details`), and the first line after the title says how the run
 * ended ("Stopped: 9 done, 35 not started"). Every cutout made is listed with its uncertainty score
 * and review level, most uncertain first, and the text says how many are to check and at which
 * level ("3 cutouts to check: 1 likely wrong, 2 worth a look", docs/review.md). Both files are replaced whole (temp name, then rename), so a reader never sees
 * half a report. The readable one shows any control character of a name or message escaped
 * (`src/shared/text.ts`): a report is read in terminals too.
 */
import { join } from 'node:path'
import { fileReviewLevel, REVIEW_LEVEL_LABELS, reviewText, toCheckText, type ReviewLevel } from '../../shared/review'
import type { CheckFailure, StoreCheck } from '../../shared/store-rules'
import { escapeControls } from '../../shared/text'
import { describeSettings, type RunSettings } from '../../shared/vocabulary'
import type { SecondLook } from '../../shared/params-types'
import { secondLookText } from '../../shared/second-look'
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
  /** Files held against a store's rules (a store preset, `--check`), one entry per file and store (docs/store-ready.md). */
  checks?: ReportCheck[]
}

/** A written file against one store: "Ready for Amazon", or "Not ready" with each reason and its fix. */
export interface ReportCheck {
  input: string
  /** The file written, inside the output folder. */
  output: string
  store: string
  passed: boolean
  failures: CheckFailure[]
}

/** The report's entries of one file's checks. */
export function storeCheckEntries(input: string, output: string, checks: readonly StoreCheck[]): ReportCheck[] {
  return checks.map((c) => ({ input, output, store: c.title, passed: c.passed, failures: c.failures }))
}

/** "12 of 14 files ready for Amazon", then one line per file not ready with its reasons and fixes. */
export function storeCheckLines(checks: readonly ReportCheck[]): string[] {
  const lines: string[] = []
  for (const store of [...new Set(checks.map((c) => c.store))]) {
    const of = checks.filter((c) => c.store === store)
    const ready = of.filter((c) => c.passed).length
    lines.push(`${ready} of ${of.length} ${of.length === 1 ? 'file' : 'files'} ready for ${store}`)
    for (const c of of.filter((x) => !x.passed)) {
      const fixes = [...new Set(c.failures.map((f) => f.fix).filter((f): f is string => f !== null))]
      lines.push(
        `  ${c.output}: Not ready for ${store}: ${c.failures.map((f) => f.reason).join('; ')}${fixes.length > 0 ? ` (${fixes.join('; ')})` : ''}`
      )
    }
  }
  return lines
}

/**
 * A cutout in a report: its uncertainty score, 0 (sure) to 1 (check this), its review level
 * (`likely_wrong`, `worth_a_look`, null: none, or touched up since) and whether it is to check
 * (it has a level); `touched_up` where it was touched up and saved (docs/review.md).
 */
export interface ReportCutout {
  input: string
  uncertainty: number
  review: ReviewLevel | null
  to_check: boolean
  touched_up?: true
  /** The second look the photo got (docs/pipeline.md "Second look"); absent: none. */
  second_look?: SecondLook
}

/** The report's cutouts from the files done: those with a score, most uncertain first (then by name, so a report reads the same each time). */
export function reportCutouts(
  done: ReadonlyArray<{ input: string; uncertainty: number | null; touchUps?: number; secondLook?: SecondLook | null }>
): ReportCutout[] {
  return done
    .filter((d): d is { input: string; uncertainty: number; touchUps?: number; secondLook?: SecondLook | null } => d.uncertainty !== null)
    .map((d) => {
      const review = fileReviewLevel(d.uncertainty, d.touchUps ?? 0)
      return {
        input: d.input,
        uncertainty: d.uncertainty,
        review,
        to_check: review !== null,
        ...((d.touchUps ?? 0) > 0 ? { touched_up: true as const } : {}),
        ...(d.secondLook ? { second_look: { views: d.secondLook.views, reason: d.secondLook.reason } } : {})
      }
    })
    .sort((a, b) => b.uncertainty - a.uncertainty || (a.input < b.input ? -1 : a.input > b.input ? 1 : 0))
}

/** The readable report: a title, how it ended, the settings, a one-line summary, then the lists; one line per entry, whatever they hold. */
export function reportText(title: string, summary: string, r: RunReport): string {
  const lines = [`${title} — ${r.started_at} to ${r.finished_at}`, r.outcome, `Settings: ${describeSettings(r.settings)}`, summary]
  const toCheck = r.cutouts.filter((c) => c.review !== null)
  // Said whenever cutouts were made, "0 cutouts to check" included: a reader knows the check was done.
  if (r.cutouts.length > 0) lines.push(toCheck.length > 0 ? `${toCheckSummary(r.cutouts)} — look at them first` : toCheckSummary(r.cutouts))
  lines.push('')
  if (toCheck.length > 0)
    lines.push('To check (most uncertain first):', ...toCheck.map((c) => `  ${c.input}: ${reviewText(c.review!, c.uncertainty)}`), '')
  const looked = r.cutouts.filter((c) => c.second_look)
  if (looked.length > 0) lines.push('Second look:', ...looked.map((c) => `  ${c.input}: ${secondLookText(c.second_look!)}`), '')
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
  if (r.checks && r.checks.length > 0) lines.push(...storeCheckLines(r.checks), '')
  if (r.warnings.length > 0) lines.push('Warnings:', ...r.warnings.map((w) => `  ${w.input}: ${w.warning}`), '')
  return lines.map(escapeControls).join('\n')
}

/** "3 cutouts to check: 1 likely wrong, 2 worth a look", or "0 cutouts to check". */
export function toCheckSummary(cutouts: ReadonlyArray<ReportCutout>): string {
  const n = (level: ReviewLevel): number => cutouts.filter((c) => c.review === level).length
  const total = n('likely_wrong') + n('worth_a_look')
  if (total === 0) return toCheckText(0)
  const parts = (['likely_wrong', 'worth_a_look'] as const)
    .filter((l) => n(l) > 0)
    .map((l) => `${n(l)} ${REVIEW_LEVEL_LABELS[l].toLowerCase()}`)
  return `${toCheckText(total)}: ${parts.join(', ')}`
}

/** The two files of a report, named and written out: for the destination, or a batch's zip. */
export function runReportFiles(report: RunReport, title: string, summary: string): Array<{ name: string; text: string }> {
  return [
    { name: REPORT_JSON, text: `${JSON.stringify(report, null, 2)}\n` },
    { name: REPORT_TXT, text: `${reportText(title, summary, report)}\n` }
  ]
}

/** Writes both files into `dir`; returns the path of the readable one. */
export async function writeRunReport(dir: string, report: RunReport, title: string, summary: string): Promise<string> {
  for (const file of runReportFiles(report, title, summary)) await writeReplacing(join(dir, file.name), file.text)
  return join(dir, REPORT_TXT)
}
