/**
 * Validation of an upload's fields, the same for JSON, multipart and IPC.
 * Two stages, as docs/api.md decides: wrong JSON types are 400 `malformed_request`; values the
 * request understood but rejects (enums, both inputs, bad URL, params rules) are 422.
 * The parameter set is parsed and the job's mode decided here, once: the engine resolves the
 * parsed set against its presets (`engine/params/upload.ts`), never the text again.
 */
import { z } from 'zod'
import { DELIVERY_MODES, MODES, OUTPUT_FORMATS, type DeliveryMode, type Mode, type OutputFormat, type UploadFields } from './api'
import type { ErrorCode, ErrorDetail } from './errors'
import { parseParams } from './params'
import { MAX_PARAMS_LENGTH, type ParamSet } from './params-keys'
import { jobMode } from './params-mode'
import { parseRegions, type RegionBox } from './regions'

/** Longest accepted `params` string (docs/api.md); defined with the grammar. */
export { MAX_PARAMS_LENGTH }

/** An upload's parameter set as its checks read it: the mode the job runs in and the set parsed. */
export interface UploadParams {
  mode: Mode
  /** The set parsed (`parseParams`); null when none was given. */
  set: ParamSet | null
}

export interface UploadRequest extends UploadParams {
  /** The format asked for, else PNG; a parameter set's `format` takes the place of PNG when none was asked for (`formatGiven`). */
  output_format: OutputFormat
  /** Whether the request named `output_format` itself. */
  formatGiven: boolean
  delivery_mode: DeliveryMode
  /** The set as it came, kept with the job; `set` is what it says. */
  params: string | Record<string, unknown> | null
  file_url: string | null
  /** Look-again boxes (`regions.ts`), not yet fitted to the image; null: none. */
  regions: RegionBox[] | null
}

export type UploadValidation =
  | { ok: true; value: UploadRequest }
  | { ok: false; code: Extract<ErrorCode, 'malformed_request' | 'missing_input'>; message: string; details: ErrorDetail[] }
  | {
      ok: false
      code: Extract<ErrorCode, 'validation_failed'>
      message: string
      details: ErrorDetail[]
      /**
       * The mode (`params` for one outside the modes) and what did parse of the set (null: none
       * given, or none that could be read), so that the refusal names the set's other problems
       * too (an unknown preset, keys the mode cannot apply) without parsing it again.
       */
      parsed: UploadParams
    }

const KNOWN_FIELDS = new Set(['file_url', 'mode', 'params', 'delivery_mode', 'output_format', 'regions'])

/** Stage 1: JSON types only. Absent and null mean "not given". */
const typesSchema = z.object({
  file_url: z.string().nullish(),
  mode: z.string().nullish(),
  params: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  delivery_mode: z.string().nullish(),
  output_format: z.string().nullish(),
  regions: z.union([z.string(), z.array(z.unknown())]).nullish()
})

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'string' ? `"${value.slice(0, 40)}"` : `a ${typeof value}`
}

/**
 * Checks the fields of an upload. `hasFile` says whether a file part (or IPC file) came with
 * them; `file` itself never appears in `fields`.
 */
export function validateUpload(fields: UploadFields, hasFile: boolean): UploadValidation {
  if (fields.file !== undefined) {
    return {
      ok: false,
      code: 'malformed_request',
      message: 'A file must be sent as the "file" part of a multipart/form-data request.',
      details: [{ field: 'file', issue: `expected a multipart file part, got ${describe(fields.file)}` }]
    }
  }
  const typed = typesSchema.safeParse(fields)
  if (!typed.success) {
    const details = typed.error.issues.map((i) => {
      const field = String(i.path[0] ?? '')
      const expected = field === 'params' ? 'a string or an object' : field === 'regions' ? 'a string or an array' : 'a string'
      return { field, issue: `expected ${expected}, got ${describe(fields[field])}` }
    })
    return { ok: false, code: 'malformed_request', message: 'A field has the wrong type.', details }
  }
  const f = typed.data
  const fileUrl = f.file_url ?? null

  if (!hasFile && fileUrl === null) {
    return {
      ok: false,
      code: 'missing_input',
      message: 'Send either a file (multipart part "file") or a "file_url".',
      details: [{ field: 'file', issue: 'neither file nor file_url was given' }]
    }
  }

  const details: ErrorDetail[] = []
  for (const name of Object.keys(fields)) {
    if (!KNOWN_FIELDS.has(name)) details.push({ field: name, issue: 'unknown field' })
  }
  if (hasFile && fileUrl !== null) {
    details.push({ field: 'file_url', issue: 'file and file_url are mutually exclusive; send only one' })
  }
  if (fileUrl !== null && !isHttpUrl(fileUrl)) {
    details.push({ field: 'file_url', issue: 'expected an absolute http or https URL' })
  }
  // A set given without a mode runs as mode=params: one rule on every way in (params-mode.ts).
  const mode = jobMode(f.mode, f.params)
  if (!(MODES as readonly string[]).includes(mode)) {
    details.push({ field: 'mode', issue: `expected one of ${MODES.join(', ')}, got ${describe(mode)}` })
  }
  const deliveryMode = f.delivery_mode ?? 'url'
  if (!(DELIVERY_MODES as readonly string[]).includes(deliveryMode)) {
    details.push({ field: 'delivery_mode', issue: `expected one of ${DELIVERY_MODES.join(', ')}, got ${describe(deliveryMode)}` })
  }
  const format = f.output_format ?? 'png'
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    details.push({ field: 'output_format', issue: `expected one of ${OUTPUT_FORMATS.join(', ')}, got ${describe(format)}` })
  }
  const params = f.params ?? null
  if (mode === 'params' && (params === null || params === '')) {
    details.push({ field: 'params', issue: 'required when mode is params' })
  }
  let set: ParamSet | null = null
  if (typeof params === 'string' && params.length > MAX_PARAMS_LENGTH) {
    details.push({ field: 'params', issue: `longer than ${MAX_PARAMS_LENGTH} characters (${params.length})` })
  } else if (params !== null && params !== '') {
    // The grammar of the set (docs/params.md), reported with the other fields; presets are looked up when it is resolved.
    const parsed = parseParams(params)
    if (parsed.ok) set = parsed.value
    else {
      details.push(...parsed.details)
      set = parsed.partial ?? null
    }
  }
  let regions: RegionBox[] | null = null
  if (f.regions !== undefined && f.regions !== null && f.regions !== '') {
    const parsed = parseRegions(f.regions)
    if (!parsed.ok) details.push({ field: 'regions', issue: parsed.issue })
    else if (!hasFile)
      details.push({ field: 'regions', issue: 'look-again boxes are taken only with the image in the part "file", not with file_url' })
    else if (parsed.boxes.length > 0) regions = parsed.boxes
  }

  if (details.length > 0) {
    const parsed = { mode: (MODES as readonly string[]).includes(mode) ? mode : 'params', set }
    return { ok: false, code: 'validation_failed', message: 'The request failed validation.', details, parsed }
  }
  return {
    ok: true,
    value: {
      mode: mode as Mode,
      set,
      output_format: format as OutputFormat,
      formatGiven: f.output_format !== undefined && f.output_format !== null,
      delivery_mode: deliveryMode as DeliveryMode,
      params,
      file_url: fileUrl,
      regions
    }
  }
}
