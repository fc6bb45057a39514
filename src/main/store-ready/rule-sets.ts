/**
 * Which rule set a `--for` / `--check` names: a built-in store (`amazon`), a user's set in the
 * data folder (`<data folder>/rules/<name>.json`), or a rule file given by its path. Files are
 * only read, so a check works beside a running app; each is checked with the schema and its
 * problems named.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseRuleSet, type RuleSet } from '../../shared/store-rules'
import { builtinRuleSet, STORES } from '../../shared/store-rules/index'

/** Where users keep their own rule sets, in the data folder. */
export const RULES_FOLDER = 'rules'
/** A rule file is a few kilobytes; anything larger is not one. */
const MAX_RULE_FILE_BYTES = 256 * 1024

export class RuleSetProblem extends Error {}

function readRuleFile(path: string): RuleSet {
  let text: string
  try {
    const bytes = readFileSync(path)
    if (bytes.length > MAX_RULE_FILE_BYTES)
      throw new RuleSetProblem(`${path}: larger than ${MAX_RULE_FILE_BYTES / 1024} KB, not a rule file`)
    text = bytes.toString('utf8')
  } catch (err) {
    if (err instanceof RuleSetProblem) throw err
    throw new RuleSetProblem(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new RuleSetProblem(`${path}: not valid JSON (${(err as Error).message})`)
  }
  const parsed = parseRuleSet(json)
  if (!parsed.ok) throw new RuleSetProblem(`${path} is not a valid rule set:\n  ${parsed.problems.join('\n  ')}`)
  return parsed.value
}

/** Whether `name` reads as a path rather than a store's name. */
const looksLikePath = (name: string): boolean => name.includes('/') || name.includes('\\') || name.endsWith('.json')

/**
 * The rule set `name` names. `dataDir`: the data folder whose `rules/` holds the user's sets
 * (null: built-ins and paths only). Throws `RuleSetProblem` naming what is wrong.
 */
export function findRuleSet(name: string, dataDir: string | null): RuleSet {
  if (looksLikePath(name)) return readRuleFile(name)
  const builtin = builtinRuleSet(name)
  if (builtin) return builtin
  if (dataDir !== null && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)) {
    const path = join(dataDir, RULES_FOLDER, `${name}.json`)
    try {
      return readRuleFile(path)
    } catch (err) {
      if (!(err instanceof RuleSetProblem) || !err.message.includes('ENOENT')) throw err
    }
  }
  throw new RuleSetProblem(
    `no rule set named "${name}": the stores are ${STORES.join(', ')}; a set of your own goes in ${dataDir ? join(dataDir, RULES_FOLDER) : `<data folder>/${RULES_FOLDER}`}/<name>.json, or give a file's path`
  )
}
