/**
 * `clipdesk check <files or folders> --for <store>`: which images a store would refuse, and why
 * (docs/store-ready.md). It opens no engine on the data folder (only its `rules/` folder is read),
 * so it runs while the app or a server holds it; the model runs in this process, as a studio
 * worker's does. Exit code 0: every file passes; 1: some do not (an unreadable file does not);
 * 2: a usage mistake.
 */
import { resolve } from 'node:path'
import type { RuleSet } from '../../shared/store-rules'
import { expandInput } from '../outputs/inputs'
import { FileChecker, type FileCheck } from '../store-ready/checker'
import { findRuleSet, RuleSetProblem } from '../store-ready/rule-sets'
import { CliError, parse } from './args'
import { complain, say } from './print'

/** The rule sets `--for` names, each found or the command stopped naming the problem. */
export function ruleSetsFor(names: string[], dataDir: string): RuleSet[] {
  if (names.length === 0) throw new CliError('name the store with --for, e.g. --for amazon (clipdesk check --help)')
  return names.map((name) => {
    try {
      return findRuleSet(name, dataDir)
    } catch (err) {
      if (err instanceof RuleSetProblem) throw new CliError(`--for: ${err.message}`)
      throw err
    }
  })
}

/**
 * One line per store a file fails: its reasons in plain words, then what to do (each fix once):
 * `a.jpg: Not ready for Amazon: the product fills 72 % of the frame; Amazon asks about 85 %: run with --params amazon`.
 */
export function failureLines(c: FileCheck): string[] {
  return c.checks
    .filter((s) => !s.passed)
    .map((s) => {
      const fixes = [...new Set(s.failures.map((f) => f.fix).filter((f): f is string => f !== null))]
      return `${c.file}: Not ready for ${s.title}: ${s.failures.map((f) => f.reason).join('; ')}${fixes.length > 0 ? `: ${fixes.join('; ')}` : ''}`
    })
}

export async function runCheck(args: string[]): Promise<number> {
  const { values, positionals, dataDir } = parse(args, {
    for: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false }
  })
  if (positionals.length === 0) throw new CliError('name at least one file or folder to check (clipdesk check --help)')
  const sets = ruleSetsFor((values.for as string[] | undefined) ?? [], dataDir)
  const files: { path: string; shown: string }[] = []
  for (const given of positionals) {
    const found = await expandInput(resolve(given), '').catch((err: Error) => {
      throw new CliError(err.message)
    })
    // A file named on its own is always tried and shown as given; a folder's are shown by their path inside it.
    for (const f of found) if (!f.notImage) files.push({ path: f.path, shown: f.path === resolve(given) ? given : f.relPath })
  }
  if (files.length === 0) throw new CliError(`no images in ${positionals.join(', ')}`)

  const checker = new FileChecker()
  const results: FileCheck[] = []
  try {
    for (const f of files) {
      const result = await checker.check(f.path, f.shown, sets)
      results.push(result)
      if (!values.json) say(...failureLines(result))
    }
  } finally {
    await checker.close()
  }
  const failing = results.filter((r) => r.checks.some((c) => !c.passed)).length
  if (values.json) {
    // JSON escapes every control character itself (cli/print.ts).
    console.log(
      JSON.stringify(
        {
          stores: sets.map((s) => s.name),
          files: results.map((r) => ({ file: r.file, passed: r.checks.every((c) => c.passed), checks: r.checks })),
          passed: results.length - failing,
          failed: failing
        },
        null,
        2
      )
    )
  } else {
    const titles = sets.map((s) => s.title).join(' and ')
    complain(
      failing === 0
        ? `${results.length} of ${results.length} ${results.length === 1 ? 'file' : 'files'}: Ready for ${titles}`
        : `${failing} of ${results.length} ${results.length === 1 ? 'file' : 'files'} not ready for ${titles}`
    )
  }
  return failing === 0 ? 0 : 1
}
