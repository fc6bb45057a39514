/**
 * The built-in rule sets, one JSON file per store (the same form as a user's rule file in the data
 * folder), checked against the schema once when loaded.
 * No Node, no DOM here.
 */
import { parseRuleSet, type RuleSet } from '../store-rules'
import AMAZON from './amazon.json'
import EBAY from './ebay.json'
import ETSY from './etsy.json'
import GOOGLE from './google.json'
import SHOPIFY from './shopify.json'

function checked(input: unknown): RuleSet {
  const r = parseRuleSet(input)
  if (!r.ok) throw new Error(`a built-in rule set: ${r.problems.join('; ')}`)
  return r.value
}

export const BUILTIN_RULE_SETS: readonly RuleSet[] = [AMAZON, EBAY, ETSY, SHOPIFY, GOOGLE].map(checked)

/** The stores with a built-in rule set (and a preset of the same name). */
export const STORES = BUILTIN_RULE_SETS.map((s) => s.name)

export function builtinRuleSet(name: string): RuleSet | null {
  return BUILTIN_RULE_SETS.find((s) => s.name === name) ?? null
}
