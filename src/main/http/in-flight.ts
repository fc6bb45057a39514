/**
 * Upload bytes held in memory by requests still being read or accepted, across all clients.
 * Each upload may be up to the size limit (50 MB by default) and is held whole until stored:
 * without a cap, ten parallel uploads took the server to 660 MB. Past the cap an upload is
 * answered 503 `unavailable` with `Retry-After`, before or while its body is read.
 *
 * Each sender (an API key; a worker key on the workers' listener) may hold at most its share of
 * the cap: four slow connections of one key once reserved all of it and kept every other key,
 * the owner's included, out for minutes. Past its share a key's own next upload is refused
 * (503 the same way), never another key's.
 */
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

  /** Reserves `n` more bytes for `owner`; false (nothing reserved) when that would pass the cap or its share. */
  take(n: number, owner: string): boolean {
    const mine = this.held.get(owner) ?? 0
    if (n < 0 || this.used + n > this.limit || mine + n > this.share) return false
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
    private readonly owner: string
  ) {}

  /** Reserves the declared length; false when the budget (or the owner's share) cannot hold it. */
  reserve(declared: number): boolean {
    if (!this.budget.take(declared, this.owner)) return false
    this.held += declared
    return true
  }

  /** Counts an arriving chunk; false when it needs bytes the budget no longer has. */
  count(bytes: number): boolean {
    this.seen += bytes
    if (this.seen <= this.held) return true
    const extra = this.seen - this.held
    if (!this.budget.take(extra, this.owner)) return false
    this.held += extra
    return true
  }

  release(): void {
    this.budget.give(this.held, this.owner)
    this.held = 0
  }
}
