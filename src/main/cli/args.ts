import { parseArgs, type ParseArgsConfig } from 'node:util'
import { closest } from '../../shared/suggest'
import { defaultDataDir } from '../data-dir'
import { errorText } from '../../shared/errors'

/** A usage mistake: printed without a stack, exit code 2. */
export class CliError extends Error {}

const COMMON = { 'data-dir': { type: 'string' } } as const

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    const parsed = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true })
    const dataDir = ((parsed.values as Record<string, unknown>)['data-dir'] as string | undefined) ?? defaultDataDir()
    return { ...parsed, dataDir }
  } catch (err) {
    // Node's parser explains how to pass a positional starting with "-"; the first sentence is the mistake.
    const message = errorText(err)
    const first = message.includes('. ') ? message.slice(0, message.indexOf('. ')) : message
    throw new CliError(
      `${first.replace(/\.$/, '')}${unknownOptionHint(first, Object.keys({ ...COMMON, ...options }))} (--help lists the options)`
    )
  }
}

/** `; did you mean --format?` for Node's "Unknown option '--fromat'" when a known option is near; '' otherwise. */
function unknownOptionHint(message: string, known: string[]): string {
  const prefix = "Unknown option '--"
  if (!message.startsWith(prefix)) return ''
  const typed = message.slice(prefix.length, message.indexOf("'", prefix.length))
  const near = closest(typed, known)
  return near ? `; did you mean --${near}?` : ''
}

/** `--credits 10` or `--credits unlimited` → number or null (unlimited). */
export function parseCredits(value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback
  if (value === 'unlimited') return null
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new CliError(`expected --credits to be a whole number from 0 up or "unlimited", got "${value}"`)
  return n
}
