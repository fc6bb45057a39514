/**
 * Upload bytes held in memory by requests still being read or accepted, across all clients.
 * Each upload may be up to the size limit (50 MB by default) and is held whole until stored:
 * without a cap, ten parallel uploads took the server to 660 MB. Past the cap an upload is
 * answered 503 `unavailable` with `Retry-After`, before or while its body is read.
 */
export class InFlightBytes {
  private used = 0

  constructor(readonly limit: number) {}

  /** Reserves `n` more bytes; false (nothing reserved) when that would pass the cap. */
  take(n: number): boolean {
    if (n < 0 || this.used + n > this.limit) return false
    this.used += n
    return true
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n)
  }

  get inUse(): number {
    return this.used
  }
}

/**
 * One request's share of the budget: reserves its declared length up front, then any bytes
 * beyond it as they arrive (chunked bodies declare none). `release()` gives all of it back.
 */
export class UploadReservation {
  private held = 0
  private seen = 0

  constructor(private readonly budget: InFlightBytes) {}

  /** Reserves the declared length; false when the budget cannot hold it. */
  reserve(declared: number): boolean {
    if (!this.budget.take(declared)) return false
    this.held += declared
    return true
  }

  /** Counts an arriving chunk; false when it needs bytes the budget no longer has. */
  count(bytes: number): boolean {
    this.seen += bytes
    if (this.seen <= this.held) return true
    const extra = this.seen - this.held
    if (!this.budget.take(extra)) return false
    this.held += extra
    return true
  }

  release(): void {
    this.budget.give(this.held)
    this.held = 0
  }
}
