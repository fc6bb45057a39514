/**
 * The batch form's choices (preset, mode, format, destination, all variations, file names) kept
 * across reloads in the page's storage, like the theme: a designer who picked a preset and a
 * folder finds them again. The batch name is not kept (each batch has its own).
 */
import { OUTPUT_FORMATS } from '../../../shared/api'

export interface KeptDraft {
  preset: string
  mode: 'clipping' | 'background'
  output_format: (typeof OUTPUT_FORMATS)[number]
  destination: string
  all_variations: boolean
  name_template: string
}

const KEY = 'clipdesk.batchDraft'

/** The kept choices that are still valid; the rest come from `fallback`. */
export function loadDraft<T extends KeptDraft>(fallback: T): T {
  let stored: Record<string, unknown> = {}
  try {
    const raw = globalThis.localStorage?.getItem(KEY)
    const parsed: unknown = raw ? JSON.parse(raw) : null
    if (parsed && typeof parsed === 'object') stored = parsed as Record<string, unknown>
  } catch {
    return fallback // private mode, or a value from another version: the defaults
  }
  const str = (v: unknown, max = 4096): v is string => typeof v === 'string' && v.length <= max
  return {
    ...fallback,
    ...(str(stored.preset, 64) && { preset: stored.preset }),
    ...((stored.mode === 'clipping' || stored.mode === 'background') && { mode: stored.mode }),
    ...((OUTPUT_FORMATS as readonly unknown[]).includes(stored.output_format) && {
      output_format: stored.output_format as KeptDraft['output_format']
    }),
    ...(str(stored.destination) && { destination: stored.destination }),
    ...(typeof stored.all_variations === 'boolean' && { all_variations: stored.all_variations }),
    ...(str(stored.name_template, 512) && { name_template: stored.name_template })
  }
}

export function saveDraft(draft: KeptDraft): void {
  const { preset, mode, output_format, destination, all_variations, name_template } = draft
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify({ preset, mode, output_format, destination, all_variations, name_template }))
  } catch {
    // private mode: the choices last for this page only
  }
}
