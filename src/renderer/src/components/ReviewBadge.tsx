import { fileReviewLevel, REVIEW_LEVEL_LABELS, scoreText, TOUCHED_UP_LABEL } from '../../../shared/review'

/**
 * A done file's review badge (docs/review.md), the same in a batch's list and a watched folder's:
 * "Likely wrong 0.99" or "Worth a look 0.62" with the score beside the words, "Touched up" once a
 * touch-up was saved (it has left "to check"), nothing for a cutout the model is sure of.
 */
export function ReviewBadge({ uncertainty, touchUps }: { uncertainty: number | null; touchUps: number }): React.JSX.Element | null {
  if (touchUps > 0)
    return (
      <span
        className="badge done review"
        data-testid="review-badge"
        data-level="touched-up"
        title="Touched up and saved: no longer to check"
      >
        {TOUCHED_UP_LABEL}
        {touchUps > 1 ? ` ×${touchUps}` : ''}
      </span>
    )
  const level = fileReviewLevel(uncertainty, touchUps)
  if (level === null || uncertainty === null) return null
  return (
    <span
      className={`badge review ${level === 'likely_wrong' ? 'failed' : 'warn'}`}
      data-testid="review-badge"
      data-level={level.replaceAll('_', '-')}
      title={`Uncertainty ${uncertainty.toFixed(3)} (0 sure, 1 check this): ${level === 'likely_wrong' ? 'the cutout is probably wrong, fix it before using it' : 'look at this cutout before using it'}`}
    >
      {REVIEW_LEVEL_LABELS[level]} <span className="review-score">{scoreText(uncertainty)}</span>
    </span>
  )
}
