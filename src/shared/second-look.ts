/**
 * The second look a photo got (the status answer's `second_look`) and the same in words
 * (reports, the app): how many more views the model saw, and why (docs/pipeline.md "Second look").
 * Below `api.ts` and `params-types.ts`, which both name it.
 */

/** Why a photo got a second look: its first mask's review score, a small subject, none found, or the setting `always`. */
export const SECOND_LOOK_REASONS = ['uncertain', 'small', 'empty', 'asked'] as const
export type SecondLookReason = (typeof SECOND_LOOK_REASONS)[number]

/** The second look a photo got: how many views the model saw beyond the first (one run each), and why. */
export interface SecondLook {
  views: number
  reason: SecondLookReason
}

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
