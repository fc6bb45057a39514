/**
 * A few at a time: `work` runs over `items` in `lanes` parallel lanes, each taking the next item
 * when its last one ends, in the order of the list; once `stop()` says so no lane takes another.
 * Used where a few files are handed on at a time (`clipdesk process`'s photos to the engine, the
 * browser app's uploads of a batch). Built on the one `Limiter` (`limit.ts`). No Node, no DOM.
 */
import { Limiter } from './limit'

export async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  work: (item: T) => Promise<void>,
  opts: { stop?: () => boolean; taken?: (count: number) => void } = {}
): Promise<void> {
  const limiter = new Limiter(lanes)
  let taken = 0
  await Promise.all(
    items.map((item) =>
      limiter.run(async () => {
        if (opts.stop?.()) return
        opts.taken?.(++taken)
        await work(item)
      })
    )
  )
}
