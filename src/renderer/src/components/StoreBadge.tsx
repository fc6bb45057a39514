import type { StoreCheck } from '../../../shared/store-rules'

/**
 * A done file's store badge (docs/store-ready.md), one per store it was checked against:
 * "Ready for Amazon", or "Not ready for Amazon" with the reasons (and their fixes) beside it. Nothing for a file made with no store preset.
 */
export function StoreBadge({ checks }: { checks: readonly StoreCheck[] | null | undefined }): React.JSX.Element | null {
  if (!checks || checks.length === 0) return null
  return (
    <>
      {checks.map((c) => {
        const reasons = c.failures.map((f) => (f.fix ? `${f.reason}: ${f.fix}` : f.reason)).join('; ')
        return (
          <span key={c.store} className="store-check">
            <span
              className={`badge ${c.passed ? 'done' : 'failed'}`}
              data-testid="store-badge"
              data-passed={c.passed}
              title={c.passed ? `Passes ${c.title}'s main-image rules` : reasons}
            >
              {c.passed ? `Ready for ${c.title}` : `Not ready for ${c.title}`}
            </span>
            {!c.passed && (
              <span className="muted small store-reason" data-testid="store-reason">
                {reasons}
              </span>
            )}
          </span>
        )
      })}
    </>
  )
}
