import { describe, expect, it } from 'vitest'
import { settingsPatchSchema } from '../../shared/app'
import { defaultConcurrency, resolveOptions } from './options'

describe('jobs at once', () => {
  it('default to 2, one more per 8 cores, at most 4', () => {
    expect([1, 2, 4, 7].map((c) => defaultConcurrency(c))).toEqual([2, 2, 2, 2])
    expect([8, 12, 16, 24, 64].map((c) => defaultConcurrency(c))).toEqual([3, 3, 4, 4, 4])
  })

  it('are the machine default when not set, the setting otherwise; the app setting may be left to the machine', () => {
    expect(resolveOptions({ dataDir: '/d' }).concurrency).toBe(defaultConcurrency())
    expect(resolveOptions({ dataDir: '/d', concurrency: 5 }).concurrency).toBe(5)
    expect(settingsPatchSchema.parse({ concurrency: null })).toEqual({ concurrency: null })
    expect(settingsPatchSchema.safeParse({ concurrency: 0 }).success).toBe(false)
  })

  it('leave the model threads to the machine unless given', () => {
    expect(resolveOptions({ dataDir: '/d' }).threads).toBeUndefined()
    expect(resolveOptions({ dataDir: '/d', threads: 3 }).threads).toBe(3)
  })
})
