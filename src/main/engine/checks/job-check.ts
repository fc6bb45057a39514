/**
 * The store check of a job's written file (docs/store-ready.md): which rule sets a job is held
 * against (the store its preset is named for), and its primary result checked against them,
 * decoded in the sandbox, its subject where the job's framing put it.
 */
import { readFile } from 'node:fs/promises'
import { isStorePreset } from '../../../shared/presets'
import type { RuleSet, StoreCheck } from '../../../shared/store-rules'
import { builtinRuleSet } from '../../../shared/store-rules/index'
import type { JobParams } from '../../../shared/params-types'
import type { Rect } from '../pipeline/compose/placement'
import { analyseFramed, type AnalyseDeps } from './analyse'
import { evaluate } from './evaluate'

/** The rule set of the store a job's preset is named for; none for other presets. */
export function storeRulesOf(params: Pick<JobParams, 'preset'> | null): RuleSet[] {
  const set = params && isStorePreset(params.preset) ? builtinRuleSet(params.preset!) : null
  return set ? [set] : []
}

/** The file at `path` (a job's result) against each set. An unreadable file fails each with the reason. */
export async function checkResultFile(
  path: string,
  framing: { source: Rect; target: Rect } | null,
  sets: readonly RuleSet[],
  deps: AnalyseDeps
): Promise<StoreCheck[]> {
  try {
    const facts = await analyseFramed(await readFile(path), framing, deps)
    return sets.map((s) => evaluate(s, facts))
  } catch (err) {
    const reason = `the file could not be checked: ${(err as Error).message}`
    return sets.map((s) => ({ store: s.name, title: s.title, passed: false, failures: [{ rule: 'readable', reason, fix: null }] }))
  }
}
