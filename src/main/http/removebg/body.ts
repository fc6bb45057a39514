/**
 * The one place the compatible endpoint reads a request body, with the listener's body reader
 * (`http/body.ts`): remove.bg's part names, form-urlencoded bodies, and room for a base64 image
 * in a JSON or form body. The in-flight budget counts it like an `/api/v1` upload.
 */
import type { IncomingMessage } from 'node:http'
import type { Engine } from '../../engine/engine'
import { ApiError } from '../../engine/errors'
import type { UploadInput } from '../../engine/intake/upload'
import { readUpload } from '../body'
import type { UploadReservation } from '../in-flight'
import type { RateFloor } from '../read-body'

/** The in-flight budget is spent: 503 with Retry-After, as for `/api/v1/upload`. */
export function busy(): ApiError {
  return new ApiError('unavailable', 'The server is receiving too many uploads at once; try again shortly.', {
    retryAfterSeconds: 5
  })
}

/** Fields and the files `image_file` (as `file`) and `bg_image_file` (as `hint`). */
export async function readRemoveBgBody(
  req: IncomingMessage,
  engine: Engine,
  reservation: UploadReservation,
  floor?: RateFloor
): Promise<Omit<UploadInput, 'keyId'>> {
  const max = engine.options.maxUploadBytes
  // Base64 takes 4 bytes for 3, plus the other fields.
  const maxText = Math.ceil((max * 4) / 3) + 1024 * 1024
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > 0 && declared <= maxText && !reservation.reserve(declared)) throw busy()
  return readUpload(req, {
    maxFileBytes: max,
    meter: (bytes) => (reservation.count(bytes) ? null : busy()),
    floor,
    parts: { file: 'image_file', hint: 'bg_image_file' },
    urlencoded: true,
    maxTextBytes: maxText
  })
}
