import { parseParams } from '../../../shared/params'
import { formatParams } from '../../../shared/params-format'
import { PRESET_NAME_PATTERN, type ParamValues } from '../../../shared/params-keys'
import { mergeValues } from '../../../shared/params-layers'
import { suggestPresets } from '../../../shared/suggest'
import {
  BUILTIN_PRESETS,
  builtinPreset,
  MAX_PRESET_DESCRIPTION,
  MAX_PRESET_TITLE,
  presetSlug,
  type PresetInfo,
  type PresetSaveRequest
} from '../../../shared/presets'
import type { ErrorDetail } from '../../../shared/errors'
import { EngineError } from '../errors'
import type { Db } from './db'
import { firstRow, prepared } from './statements'

interface PresetRow {
  name: string
  params: string
  source: string
  description: string | null
  title: string | null
  created_at: number
  updated_at: number
}

function toInfo(row: PresetRow): PresetInfo {
  const values = JSON.parse(row.params) as ParamValues
  return {
    name: row.name,
    title: row.title || row.name,
    builtin: false,
    description: row.description,
    params: formatParams(values),
    values,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at)
  }
}

function invalid(details: ErrorDetail[]): EngineError {
  return new EngineError('validation_failed', 'The preset failed validation.', { details })
}

/**
 * Presets: the built-in ones (code constants, listed first, never editable) and the user's,
 * stored as their typed values. A user preset led by another preset's name stores the keys of
 * both, so editing or deleting the other one later does not change it.
 */
export class PresetStore {
  constructor(private readonly db: Db) {}

  list(): PresetInfo[] {
    const rows = prepared(this.db, 'SELECT * FROM presets ORDER BY name').all() as PresetRow[]
    return [...BUILTIN_PRESETS, ...rows.map(toInfo)]
  }

  get(name: string): PresetInfo | null {
    const builtin = builtinPreset(name)
    if (builtin) return builtin
    return firstRow(this.db, 'SELECT * FROM presets WHERE name = ?', toInfo, name)
  }

  /**
   * User presets renamed because a built-in took their name (migration 016), not yet said:
   * returned once, then marked told.
   */
  takeRenames(): { from: string; to: string }[] {
    const rows = prepared(this.db, 'SELECT old_name AS "from", new_name AS "to" FROM preset_renames WHERE told = 0').all() as {
      from: string
      to: string
    }[]
    if (rows.length > 0) prepared(this.db, 'UPDATE preset_renames SET told = 1 WHERE told = 0').run()
    return rows
  }

  /** The values of a preset, for `resolveParams`. */
  readonly lookup = (name: string): ParamValues | null => this.get(name)?.values ?? null

  /** Creates a user preset, or replaces the one of that name. Throws EngineError `validation_failed` naming each bad field. */
  save(request: PresetSaveRequest): PresetInfo {
    if (typeof request !== 'object' || request === null) throw new EngineError('malformed_request', 'The request must be an object.')
    const details: ErrorDetail[] = []
    const { params, description } = request
    const title = typeof request.title === 'string' ? request.title.trim() || null : null
    // The short name: as given, or made from the display name ("Shop Beige" → shop-beige).
    const name =
      typeof request.name === 'string' && request.name.trim() !== '' ? request.name.trim() : title ? presetSlug(title) : request.name
    if (
      request.title !== undefined &&
      request.title !== null &&
      (typeof request.title !== 'string' || request.title.length > MAX_PRESET_TITLE)
    ) {
      details.push({ field: 'title', issue: `expected a text of at most ${MAX_PRESET_TITLE} characters` })
    }
    if (typeof name !== 'string' || !PRESET_NAME_PATTERN.test(name)) {
      details.push(
        title
          ? { field: 'title', issue: 'the name needs at least one letter or digit (a-z, 0-9)' }
          : { field: 'name', issue: 'expected 1–64 characters of a-z, 0-9, "_" and "-", starting with a letter or digit' }
      )
    } else if (builtinPreset(name)) {
      details.push({ field: 'name', issue: `"${name}" is a built-in preset and cannot be changed; save under another name` })
    }
    if (
      description !== undefined &&
      description !== null &&
      (typeof description !== 'string' || description.length > MAX_PRESET_DESCRIPTION)
    ) {
      details.push({ field: 'description', issue: `expected a text of at most ${MAX_PRESET_DESCRIPTION} characters` })
    }
    let values: ParamValues = {}
    const parsed = parseParams(params)
    if (!parsed.ok) {
      details.push(...parsed.details)
    } else {
      const { preset } = parsed.value
      let base: ParamValues = {}
      if (preset !== null) {
        const found = preset === name ? null : this.lookup(preset)
        if (found) base = found
        else
          details.push({
            field: 'params.preset',
            issue: preset === name ? 'a preset cannot start from itself' : `no preset named "${preset}"`
          })
      }
      const merged = mergeValues(base, parsed.value.values)
      details.push(...merged.details)
      values = merged.values
    }
    if (details.length > 0)
      throw invalid(
        suggestPresets(
          details,
          this.list().map((p) => p.name)
        )
      )

    const now = Date.now()
    const source = typeof params === 'string' ? params : JSON.stringify(params)
    prepared(
      this.db,
      `INSERT INTO presets (name, params, source, description, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET params = excluded.params, source = excluded.source,
           description = excluded.description, title = excluded.title, updated_at = excluded.updated_at`
    ).run(name, JSON.stringify(values), source, description ?? null, title, now, now)
    return this.get(name as string)!
  }

  /** Deletes a user preset. False when there is none of that name; throws `validation_failed` for a built-in. */
  delete(name: string): boolean {
    if (typeof name === 'string' && builtinPreset(name)) {
      throw invalid([{ field: 'name', issue: `"${name}" is a built-in preset and cannot be deleted` }])
    }
    if (typeof name !== 'string') return false
    return prepared(this.db, 'DELETE FROM presets WHERE name = ?').run(name).changes > 0
  }
}
