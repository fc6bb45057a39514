/**
 * Upload bytes held in memory by requests still being read or accepted, across all clients.
 * Each upload may be up to the size limit (50 MB by default) and is held whole until stored:
 * without a cap, ten parallel uploads took the server to 660 MB. Past the cap an upload is
 * answered 503 `unavailable` with `Retry-After`, before or while its body is read.
 *
 * Each sender (an API key; a worker key on the workers' listener) may hold at most its share of
 * the cap: four slow connections of one key once reserved all of it and kept every other key,
 * the owner's included, out for minutes. Past its share a key's own next upload is refused
 * (503 the same way), never another key's. A sender's only request may pass its share (while the
 * cap has room): the share bounds how many requests a key holds at once, never how large one may
 * be; a lone body under its size limit refused 503 would be refused for ever, however long its
 * client waited (a remove.bg base64 body is a third larger than the image it carries).
 */
import type { IncomingMessage } from 'node:http'
import { ApiError } from './api-error'
import { declaredLength } from './read-body'

/** What a budget holds: the API's uploads, or the coordinator's results from its workers. */
export type HeldBytes = 'uploads' | 'results'

/** The budget (or the sender's share of it) is spent: 503 `unavailable` with Retry-After. */
export function busy(what: HeldBytes = 'uploads'): ApiError {
  const [who, sender] = what === 'uploads' ? ['The server', 'API key'] : ['The coordinator', 'worker key']
  return new ApiError(
    'unavailable',
    `${who} is receiving too many ${what} at once, or this ${sender} is already sending its share of them; try again shortly.`,
    { retryAfterSeconds: 5 }
  )
}

export class InFlightBytes {
  private used = 0
  private readonly held = new Map<string, number>()

  /**
   * @param limit all senders together
   * @param share one sender (at most `limit`)
   */
  constructor(
    readonly limit: number,
    readonly share = limit
  ) {}

  /**
   * Reserves `n` more bytes for `owner`, of a request already holding `own` of them; false
   * (nothing reserved) when that would pass the cap, or pass its share while the owner holds
   * bytes for another request.
   */
  take(n: number, owner: string, own = 0): boolean {
    const mine = this.held.get(owner) ?? 0
    if (n < 0 || this.used + n > this.limit || (mine + n > this.share && mine > own)) return false
    this.used += n
    this.held.set(owner, mine + n)
    return true
  }

  give(n: number, owner: string): void {
    this.used = Math.max(0, this.used - n)
    const left = (this.held.get(owner) ?? 0) - n
    if (left > 0) this.held.set(owner, left)
    else this.held.delete(owner)
  }

  /** What `owner` holds now. */
  heldBy(owner: string): number {
    return this.held.get(owner) ?? 0
  }
}

/**
 * One request's share of the budget: reserves its declared length up front, then any bytes
 * beyond it as they arrive (chunked bodies declare none). `release()` gives all of it back.
 */
export class UploadReservation {
  private held = 0
  private seen = 0

  constructor(
    private readonly budget: InFlightBytes,
    private readonly owner: string,
    private readonly what: HeldBytes = 'uploads'
  ) {}

  /**
   * Reserves the request's declared length before its body is read; 503 `busy()` when the budget
   * cannot hold it. A declaration over `max` is left to the body reader, which refuses it as too large.
   */
  reserveDeclared(req: IncomingMessage, max: number): void {
    const declared = declaredLength(req)
    if (declared !== null && declared > 0 && declared <= max && !this.reserve(declared)) throw busy(this.what)
  }

  /** The body reader's meter: counts each chunk as it arrives, `busy()` once the budget cannot hold it. */
  readonly meter = (bytes: number): ApiError | null => (this.count(bytes) ? null : busy(this.what))

  /** The most all requests together may hold: a body larger than this could never be taken. */
  get capacity(): number {
    return this.budget.limit
  }

  /** Reserves the declared length; false when the budget (or the owner's share) cannot hold it. */
  reserve(declared: number): boolean {
    if (!this.budget.take(declared, this.owner, this.held)) return false
    this.held += declared
    return true
  }

  /** Counts an arriving chunk; false when it needs bytes the budget no longer has. */
  count(bytes: number): boolean {
    this.seen += bytes
    if (this.seen <= this.held) return true
    const extra = this.seen - this.held
    if (!this.budget.take(extra, this.owner, this.held)) return false
    this.held += extra
    return true
  }

  /**
   * From now on the request holds `n` bytes: its body was read and turned into what it keeps
   * (a base64 text into the smaller image), the rest given back. False when `n` is more than it
   * holds and the budget cannot give the difference.
   */
  holdOnly(n: number): boolean {
    if (n > this.held && !this.budget.take(n - this.held, this.owner, this.held)) return false
    if (n < this.held) this.budget.give(this.held - n, this.owner)
    this.held = n
    this.seen = n
    return true
  }

  release(): void {
    this.budget.give(this.held, this.owner)
    this.held = 0
  }
}
