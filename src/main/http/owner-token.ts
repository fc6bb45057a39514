/**
 * The owner token of a local server (`owner-note.ts`): a command beside the server on the same
 * data folder (`clipdesk process`) sends it instead of an API key, and its uploads are the
 * owner's own work, like a batch of the app: no key, no credit. `/api/v1/upload`,
 * `/api/v1/status` and the app bridge's methods (`clipdesk keys|presets|models` through the
 * server) take it; results are fetched from their signed addresses as any client does.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { OWNER_TOKEN_HEADER } from '../owner-note'

/** True when the request carries this server's owner token (compared in constant time). */
export type OwnerCheck = (req: IncomingMessage) => boolean

export function ownerCheck(token: string | undefined): OwnerCheck {
  const expected = token ? Buffer.from(token) : null
  return (req) => {
    const given = req.headers[OWNER_TOKEN_HEADER]
    if (!expected || typeof given !== 'string') return false
    const bytes = Buffer.from(given)
    return bytes.length === expected.length && timingSafeEqual(bytes, expected)
  }
}
