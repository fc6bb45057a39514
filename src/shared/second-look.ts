/**
 * The second look in words (reports, the app): how many more views the model saw, and why
 * (docs/pipeline.md "Second look").
 */
import type { SecondLook, SecondLookReason } from './params-types'

export const SECOND_LOOK_WHY: Record<SecondLookReason, string> = {
  uncertain: 'the first mask was uncertain',
  small: 'the subject was small',
  empty: 'the first look found no subject',
  asked: 'asked for on every photo'
}

/** "4 more views: the first look found no subject". */
export function secondLookText(look: SecondLook): string {
  return `${look.views} more ${look.views === 1 ? 'view' : 'views'}: ${SECOND_LOOK_WHY[look.reason]}`
}

/** The app's badge. */
export const SECOND_LOOK_LABEL = 'Second look'
