/**
 * The migration naming rule (src/main/engine/store/migrations.ts): names are unique across every
 * owner; a migration after those that shipped takes the next number of one sequence shared by
 * all owners, never a number in use; each owner applies its migrations in the order of their
 * numbers. Shipped names are frozen: a data folder records them.
 */
import { describe, expect, it } from 'vitest'
import { BATCH_MIGRATIONS } from '../src/main/batches/schema/migrations'
import { ENGINE_MIGRATIONS } from '../src/main/engine/store/migrations'
import { STUDIO_MIGRATIONS } from '../src/main/studio/schema/migrations'
import { WATCH_MIGRATIONS } from '../src/main/watch/schema/migrations'

/** Every name that shipped before the rule was written; they keep their (sometimes shared) numbers. */
const SHIPPED = new Set([
  '001-core',
  '002-mask-cache',
  '003-presets',
  '004-watch',
  '005-batches',
  '005-keys-admin',
  '006-models',
  '007-batch-resume',
  '008-keys-kind',
  '008-studio',
  '009-batch-interrupted',
  '010-batch-item-device',
  '011-studio-worker-keys',
  '011-watch-no-lease',
  '012-batch-expected',
  '012-job-framing',
  '012-presets-title',
  '013-batch-item-uncertainty',
  '013-batch-touch-up',
  '013-job-uncertainty',
  '013-watch-file-uncertainty',
  '014-watch-file-touch-up'
])
const OWNERS = { engine: ENGINE_MIGRATIONS, batches: BATCH_MIGRATIONS, watch: WATCH_MIGRATIONS, studio: STUDIO_MIGRATIONS }
const number = (name: string): number => Number(/^(\d{3})-[a-z0-9]+(-[a-z0-9]+)*$/.exec(name)?.[1] ?? Number.NaN)

describe('migration names', () => {
  const all = Object.values(OWNERS)
    .flat()
    .map((m) => m.name)
  it('are unique across every owner, and every shipped one is still applied', () => {
    expect(new Set(all).size).toBe(all.length)
    for (const name of SHIPPED) expect(all).toContain(name)
  })
  it('after those that shipped, take new numbers of one shared sequence', () => {
    const shippedMax = Math.max(...[...SHIPPED].map(number))
    const added = all.filter((name) => !SHIPPED.has(name))
    for (const name of added) expect(number(name), `${name}: <NNN>-<what>, NNN after ${shippedMax}`).toBeGreaterThan(shippedMax)
    const numbers = added.map(number)
    expect(new Set(numbers).size, `a number used twice among ${added.join(', ')}`).toBe(numbers.length)
  })
  it.each(Object.entries(OWNERS))('%s applies its migrations in the order of their numbers', (_owner, list) => {
    const numbers = list.map((m) => number(m.name))
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
  })
})
