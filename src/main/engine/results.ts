import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Signs result addresses so that they can be fetched without the API key until they expire
 * (docs/api.md, delivery): sig = HMAC-SHA256(secret, "<job_id>/<file>:<expires>").
 */
export class ResultSigner {
  constructor(private readonly secret: Buffer) {}

  sign(jobId: string, file: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${jobId}/${file}:${expires}`).digest('base64url')
  }

  /** True when `sig` is the signature of the address and `expires` (unix seconds) is not past. */
  verify(jobId: string, file: string, expires: number, sig: string, nowMs = Date.now()): boolean {
    if (!Number.isInteger(expires) || expires * 1000 < nowMs) return false
    const expected = Buffer.from(this.sign(jobId, file, expires))
    const given = Buffer.from(sig)
    return expected.length === given.length && timingSafeEqual(expected, given)
  }
}
