import { beforeEach, describe, expect, it } from 'vitest'
import { tempDatabase } from '../../../../test/helpers/temp-database'
import { EngineError } from '../errors'
import type { Db } from './db'
import { PresetStore } from './presets'
import { BUILTIN_PRESETS } from '../../../shared/presets'
import { ERROR_STATUS } from '../../../shared/errors'

const database = tempDatabase()
let db: Db
let presets: PresetStore

beforeEach(() => {
  db = database()
  presets = new PresetStore(db)
})

function refusal(run: () => unknown): EngineError {
  try {
    run()
  } catch (err) {
    if (err instanceof EngineError) return err
    throw err
  }
  throw new Error('not refused')
}

describe('PresetStore', () => {
  it('lists the nine built-ins first, marked builtin, with their params', () => {
    const list = presets.list()
    expect(list.map((p) => [p.name, p.builtin])).toEqual([
      ['ecommerce-white', true],
      ['transparent-square', true],
      ['marketplace-1600', true],
      ['social-blur', true],
      ['amazon', true],
      ['ebay', true],
      ['etsy', true],
      ['shopify', true],
      ['google', true]
    ])
    expect(list[0]!.params).toBe(
      'background=#FFFFFF;shadow=top;crop=subject;size=2000x2000;margin=5%;position=bottom;upscale=allow;primary=shadowTop'
    )
  })

  it('creates, lists, updates and deletes a user preset', () => {
    const created = presets.save({ name: 'shop', params: 'background=#EEE;size=1200', description: 'My shop' })
    expect(created).toMatchObject({
      name: 'shop',
      builtin: false,
      description: 'My shop',
      params: 'background=#EEEEEE;size=1200',
      values: { background: { kind: 'color', rgba: [0xee, 0xee, 0xee, 255] }, size: { kind: 'long', max: 1200 } }
    })
    expect(presets.list().map((p) => p.name)).toContain('shop')
    expect(presets.lookup('shop')).toEqual(created.values)

    const updated = presets.save({ name: 'shop', params: { shadow: 'none', quality: 80 } })
    expect(updated).toMatchObject({ params: 'shadow=none;quality=80', description: null, createdAt: created.createdAt })
    expect(updated.updatedAt).toBeGreaterThanOrEqual(created.updatedAt!)

    expect(presets.delete('shop')).toBe(true)
    expect(presets.delete('shop')).toBe(false)
    expect(presets.get('shop')).toBeNull()
  })

  it('takes a display name with spaces and makes the short name from it', () => {
    const saved = presets.save({ title: 'Shop Beige', params: 'background=beige;crop=subject' })
    expect(saved).toMatchObject({ name: 'shop-beige', title: 'Shop Beige', params: 'background=#F5F5DC;crop=subject' })
    expect(presets.list().find((p) => p.name === 'shop-beige')?.title).toBe('Shop Beige')
    // Editing keeps the short name; the display name may change.
    expect(presets.save({ name: 'shop-beige', title: 'Shop — beige, 2', params: 'crop=subject' }).title).toBe('Shop — beige, 2')
    // A preset saved without a display name shows its short name.
    expect(presets.save({ name: 'plain', params: 'crop=subject' }).title).toBe('plain')
    const refused = (req: Parameters<typeof presets.save>[0]) => {
      try {
        presets.save(req)
      } catch (err) {
        return (err as EngineError).details
      }
      return null
    }
    expect(refused({ title: '!!!', params: 'crop=subject' })).toEqual([
      { field: 'title', issue: 'the name needs at least one letter or digit (a-z, 0-9)' }
    ])
    expect(refused({ title: 'Ecommerce White', params: 'crop=subject' })).toEqual([
      { field: 'name', issue: '"ecommerce-white" is a built-in preset and cannot be changed; save under another name' }
    ])
  })

  it('copies the keys of a preset it starts from, so later edits of that one do not change it', () => {
    presets.save({ name: 'base', params: 'shadow=none;quality=70' })
    const derived = presets.save({ name: 'derived', params: 'base;quality=90;margin=20px' })
    expect(derived.params).toBe('shadow=none;margin=20px;quality=90')
    presets.save({ name: 'base', params: 'shadow=top' })
    presets.delete('base')
    expect(presets.get('derived')!.params).toBe('shadow=none;margin=20px;quality=90')
    expect(presets.save({ name: 'white-1000', params: 'ecommerce-white;size=1000x1000' }).values).toMatchObject({
      size: { kind: 'box', width: 1000, height: 1000 },
      primary: 'shadowTop'
    })
  })

  it('refuses, naming each bad field: name, description, params keys, unknown base, self reference', () => {
    const err = refusal(() => presets.save({ name: 'Bad Name', params: 'size=0;colour=red', description: 'x'.repeat(501) }))
    expect([ERROR_STATUS[err.code], err.code]).toEqual([422, 'validation_failed'])
    expect(err.details!.map((d) => d.field).sort()).toEqual(['description', 'name', 'params.colour', 'params.size'])
    expect(refusal(() => presets.save({ name: 'a', params: 'nope;shadow=none' })).details).toEqual([
      { field: 'params.preset', issue: 'no preset named "nope"' }
    ])
    expect(refusal(() => presets.save({ name: 'a', params: 'ecomerce-white;shadow=none' })).details).toEqual([
      { field: 'params.preset', issue: 'no preset named "ecomerce-white"; did you mean "ecommerce-white"?' }
    ])
    expect(refusal(() => presets.save({ name: 'a', params: 'a;shadow=none' })).details!.map((d) => d.field)).toEqual(['params.preset'])
    expect(refusal(() => presets.save({ name: 'a', params: 'x'.repeat(2049) })).details).toEqual([
      { field: 'params', issue: 'longer than 2048 characters (2049)' }
    ])
    expect(refusal(() => presets.save({ name: 'a', params: 'ecommerce-white;variations=compose' })).details!.map((d) => d.field)).toEqual([
      'params.primary'
    ])
    expect(presets.list()).toHaveLength(BUILTIN_PRESETS.length)
    const malformed = refusal(() => presets.save(null as never))
    expect([ERROR_STATUS[malformed.code], malformed.code]).toEqual([400, 'malformed_request'])
  })

  it('never changes or deletes a built-in', () => {
    const save = refusal(() => presets.save({ name: 'ecommerce-white', params: 'shadow=none' }))
    expect([ERROR_STATUS[save.code], save.code, save.details![0]!.field]).toEqual([422, 'validation_failed', 'name'])
    const del = refusal(() => presets.delete('social-blur'))
    expect([ERROR_STATUS[del.code], del.code, del.details![0]!.field]).toEqual([422, 'validation_failed', 'name'])
    expect(presets.get('social-blur')!.builtin).toBe(true)
  })
})
