/**
 * The built-in rule sets, one file per store, checked against the schema once when loaded.
 * No Node, no DOM here.
 */
import { parseRuleSet, type RuleSet, type RuleSetInput } from '../store-rules'
import { AMAZON } from './amazon'
import { EBAY } from './ebay'
import { ETSY } from './etsy'
import { GOOGLE } from './google'
import { SHOPIFY } from './shopify'

function checked(input: RuleSetInput): RuleSet {
  const r = parseRuleSet(input)
  if (!r.ok) throw new Error(`built-in rule set ${input.name}: ${r.problems.join('; ')}`)
  return r.value
}

export const BUILTIN_RULE_SETS: readonly RuleSet[] = [AMAZON, EBAY, ETSY, SHOPIFY, GOOGLE].map(checked)

/** The stores with a built-in rule set (and a preset of the same name). */
export const STORES = BUILTIN_RULE_SETS.map((s) => s.name)

export function builtinRuleSet(name: string): RuleSet | null {
  return BUILTIN_RULE_SETS.find((s) => s.name === name) ?? null
}
