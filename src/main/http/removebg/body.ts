/**
 * The one place the compatible endpoint reads a request body, through the listener's one body
 * reader (`http/read-body.ts`, `http/body.ts`): remove.bg's part names, and JSON or
 * form-urlencoded bodies that may carry the photo as base64 (`image_file_b64`). Every byte is
 * counted against the in-flight budget as it arrives, like an `/api/v1` upload; a text body is
 * parsed and its base64 decoded off the main thread (`text-body.ts`), after which the request
 * holds only the decoded image.
 */
import type { IncomingMessage } from 'node:http'
import type { RemoveBgPort } from '../../engine/ports'
import { ApiError } from '../api-error'
import type { UploadInput } from '../../engine/public'
import { readUpload } from '../body'
import { busy, type UploadReservation } from '../in-flight'
import { declaredLength, readBody, tooLarge, type RateFloor } from '../read-body'
import { parseTextBody, type TextBody } from './text-body'

/** A multipart body carries its files and its text parts: at most this much beside the file limit (as `http/body.ts`). */
const MULTIPART_TEXT_BYTES = 1024 * 1024

export interface RemoveBgBody {
  /** The fields, without a prototype (`image_file_b64` taken out of a text body: see `b64`). */
  fields: Record<string, unknown>
  /** `image_file` */
  file?: UploadInput['file']
  /** `bg_image_file` */
  hint?: UploadInput['hint']
  /** `image_file_b64` of a JSON or form-urlencoded body, decoded (or why it could not be). */
  b64?: TextBody['b64']
}

/** The most a body may be for images of `max` bytes: as text (JSON, form), or multipart. */
export function removeBgBodyLimit(max: number, text: boolean): number {
  // Base64 takes 4 bytes for 3, plus the other fields.
  return text ? Math.ceil((max * 4) / 3) + 1024 * 1024 : max + MULTIPART_TEXT_BYTES
}

/** Fields, the files `image_file` (as `file`) and `bg_image_file` (as `hint`), and a decoded `image_file_b64`. */
export async function readRemoveBgBody(
  req: IncomingMessage,
  engine: RemoveBgPort,
  reservation: UploadReservation,
  floor?: RateFloor
): Promise<RemoveBgBody> {
  const max = engine.options.maxUploadBytes
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  const text = type === 'application/json' ? 'json' : type === 'application/x-www-form-urlencoded' ? 'urlencoded' : null
  if (!text && type !== 'multipart/form-data') {
    throw new ApiError(
      'malformed_request',
      `Unsupported content type "${type || '(none)'}": send application/json, application/x-www-form-urlencoded or multipart/form-data.`
    )
  }
  const limit = removeBgBodyLimit(max, text !== null)
  const declared = declaredLength(req)
  // A body all of the budget could never hold is too large, never "busy": a client following
  // Retry-After would retry it for ever.
  if (declared !== null && declared <= limit && declared > reservation.capacity) throw tooLarge(reservation.capacity)
  // An oversized declaration is refused as too large by the reader, not counted here.
  reservation.reserveDeclared(req, limit)
  const meter = reservation.meter
  if (!text) return readUpload(req, { maxFileBytes: max, meter, floor, parts: { file: 'image_file', hint: 'bg_image_file' } })

  const raw = await readBody(req, { limit, meter, floor })
  const parsed = await parseTextBody(text, raw, 'image_file_b64')
  // The text is freed (moved to the parser); what the request holds from now on is the image.
  const image = parsed.b64 && 'bytes' in parsed.b64 ? parsed.b64.bytes.length : 0
  if (image > max) throw tooLarge(max, 'The image (image_file_b64)')
  if (!reservation.holdOnly(image)) throw busy()
  return parsed
}
