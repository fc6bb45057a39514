/**
 * The store's batch and key actions against a fake transport: the same actions drive IPC
 * and HTTP, so what they send and how they apply answers and pushed events is tested here.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { type BatchFileRef, type BatchSummary, batchCounts } from '../../../shared/batches'
import { AppError, setTransport, type Transport } from '../transport'
import { batchItem } from '../testing/batch-item'
import { resetStore, useStore } from '.'

function summary(id: string, over: Partial<BatchSummary> = {}): BatchSummary {
  return {
    id,
    name: 'B',
    request: { mode: 'clipping', output_format: 'png', params: null },
    destination: '/out',
    created_at: 1,
    started_at: null,
    finished_at: null,
    counts: batchCounts(),
    progress: 0,
    interrupted: false,
    expected_files: null,
    rev: 0,
    ...over
  }
}

const item = batchItem

/** A transport whose methods are the given fakes; calls are recorded. */
function fake(kind: 'ipc' | 'http', methods: Partial<Record<keyof Transport, unknown>>): { t: Transport; calls: Array<[string, unknown]> } {
  const calls: Array<[string, unknown]> = []
  const t = new Proxy({ kind } as Transport, {
    get(target, name: string) {
      if (name === 'kind') return target.kind
      const impl = methods[name as keyof Transport]
      if (!impl) return undefined
      return (...args: unknown[]) => {
        calls.push([name, args[0]])
        return (impl as (...a: unknown[]) => unknown)(...args)
      }
    }
  })
  return { t, calls }
}

const file = (name: string, size = 3): File => new File([new Uint8Array(size)], name, { type: 'image/png', lastModified: 1 })

beforeEach(() => {
  resetStore()
  setTransport(null)
})

describe('batch slice', () => {
  it('stages dropped files once each', () => {
    const a = file('a.png')
    useStore.getState().stage([
      { file: a, relPath: 'shoot/a.png' },
      { file: a, relPath: 'shoot/a.png' }
    ])
    useStore.getState().stage([
      { file: a, relPath: 'shoot/a.png' },
      { file: file('b.png'), relPath: 'b.png' }
    ])
    expect(useStore.getState().staged.map((f) => f.relPath)).toEqual(['shoot/a.png', 'b.png'])
  })

  it('starts a batch: creates it, sends every file as a reference in staged order, refusals and non-images too, opens it', async () => {
    // The first upload finishes last: the batch still gets the files in the order staged.
    let release!: () => void
    const firstHeld = new Promise<void>((resolve) => (release = resolve))
    const { t, calls } = fake('http', {
      batchCreate: async () => summary('b1'),
      fileRef: async (f: File, relPath: string): Promise<BatchFileRef> => {
        if (f.name === 'notes.txt') throw new Error('a file that is not an image is never sent')
        if (f.name === 'a.png') await firstHeld
        if (f.name === 'c.png') release()
        if (f.name === 'bad.png') throw new AppError({ code: 'validation_failed', message: 'The file is not an image.' }, 422)
        return { job_id: `job-${relPath}`, rel_path: relPath }
      },
      batchAdd: async (req: { files: BatchFileRef[] }) => ({ added: req.files.length, refused: [] }),
      batchGet: async () => ({
        ...summary('b1', {
          counts: batchCounts({ total: 2, waiting: 2 })
        }),
        items: [item('x', 0), item('y', 1)]
      })
    })
    setTransport(t)
    useStore.getState().setDraft({ preset: 'ecommerce-white', output_format: 'webp', destination: '/dest' })
    useStore.getState().stage([
      { file: file('a.png'), relPath: 'a.png' },
      { file: file('bad.png'), relPath: 'bad.png' },
      { file: file('c.png'), relPath: 'dir/c.png' },
      { file: file('notes.txt'), relPath: 'dir/notes.txt', notImage: true }
    ])
    await useStore.getState().startBatch()

    // The images are counted (and their bytes summed) before the first is sent: the destination is checked for them.
    const images = ['a.png', 'bad.png', 'c.png'].reduce((n, name) => n + file(name).size, 0)
    expect(calls[0]).toEqual([
      'batchCreate',
      {
        name: undefined,
        request: { mode: 'params', output_format: 'webp', params: 'ecommerce-white', all_variations: false, name_template: null },
        destination: '/dest',
        expected: { files: 3, bytes: images }
      }
    ])
    const sent = calls.filter(([m]) => m === 'batchAdd').flatMap(([, arg]) => (arg as { files: BatchFileRef[] }).files)
    // A file the engine refused and one that is not an image are listed with the batch, with why.
    expect(sent).toEqual([
      { job_id: 'job-a.png', rel_path: 'a.png' },
      { refused: 'The file is not an image.', rel_path: 'bad.png' },
      { job_id: 'job-dir/c.png', rel_path: 'dir/c.png' },
      { refused: 'Not an image: skipped.', rel_path: 'dir/notes.txt', not_image: true }
    ])
    const s = useStore.getState()
    expect(s.refused).toEqual([])
    expect(s.staged).toEqual([])
    expect(s.starting).toBeNull()
    expect(s.currentBatchId).toBe('b1')
    expect(s.items.map((i) => i.id)).toEqual(['x', 'y'])
    expect(s.batches.map((b) => b.counts.total)).toEqual([2])
  })

  it('keeps the files staged and shows the error when the batch cannot be made', async () => {
    const { t } = fake('ipc', {
      batchCreate: async () => {
        throw new AppError({ code: 'validation_failed', message: 'The destination must be an absolute folder path.' }, 422)
      }
    })
    setTransport(t)
    useStore.getState().stage([{ file: file('a.png'), relPath: 'a.png' }])
    await useStore.getState().startBatch()
    expect(useStore.getState().batchError).toBe('The destination must be an absolute folder path.')
    expect(useStore.getState().staged).toHaveLength(1)
  })

  it('shows a destination that cannot be used under its field, in plain words with the system text behind them', async () => {
    const { t } = fake('ipc', {
      batchCreate: async () => {
        throw new AppError(
          {
            code: 'validation_failed',
            message: 'The folder is read-only: /media/ro',
            details: [
              { field: 'destination', issue: 'The folder is read-only: /media/ro' },
              { field: 'destination.system', issue: "EROFS: read-only file system, open '/media/ro/.clipdesk-check-1'" }
            ]
          },
          422
        )
      }
    })
    setTransport(t)
    useStore.getState().stage([{ file: file('a.png'), relPath: 'a.png' }])
    await useStore.getState().startBatch()
    expect(useStore.getState().destinationProblem).toEqual({
      message: 'The folder is read-only: /media/ro',
      detail: "EROFS: read-only file system, open '/media/ro/.clipdesk-check-1'"
    })
    expect(useStore.getState().batchError).toBeNull()
    expect(useStore.getState().staged).toHaveLength(1)
    // Choosing another folder clears it.
    useStore.getState().setDraft({ destination: '/elsewhere' })
    expect(useStore.getState().destinationProblem).toBeNull()
  })

  it('applies pushed item and batch events to the open batch only', async () => {
    const { t } = fake('ipc', { batchGet: async () => ({ ...summary('b1'), items: [item('x', 0)] }) })
    setTransport(t)
    await useStore.getState().openBatch('b1')
    const before = useStore.getState().items
    useStore.getState().applyItem(item('x', 0, { status: 'segmenting', progress: 40 }))
    useStore.getState().applyItem(item('z', 2))
    useStore.getState().applyItem(item('y', 1))
    useStore.getState().applyItem({ ...item('other', 0), batch_id: 'b2' })
    const s = useStore.getState()
    expect(s.items.map((i) => [i.id, i.progress])).toEqual([
      ['x', 40],
      ['y', 0],
      ['z', 0]
    ])
    expect(s.itemPos).toEqual({ x: 0, y: 1, z: 2 })
    expect(before[0]!.progress).toBe(0) // never mutated in place
    useStore.getState().applyBatch(summary('b1', { progress: 55 }))
    useStore.getState().applyBatch(summary('b9'))
    expect(useStore.getState().batches.map((b) => [b.id, b.progress])).toEqual([
      ['b9', 0],
      ['b1', 55]
    ])
    // A cancel's answer read before the pushed summary that followed it is older: not applied over it.
    useStore.getState().applyBatch(summary('b1', { progress: 100, rev: 20 }))
    useStore.getState().applyBatch(summary('b1', { progress: 60, rev: 10 }))
    expect(useStore.getState().batches.find((b) => b.id === 'b1')?.progress).toBe(100)
  })
})

describe('batch slice, answers and events that race', () => {
  it('keeps a pushed item over an older read of it: from a late answer of the batch, or a late event', async () => {
    let answer: (value: unknown) => void = () => undefined
    const { t } = fake('ipc', {
      batchGet: () =>
        new Promise((resolve) => {
          answer = resolve
        })
    })
    setTransport(t)
    useStore.setState({ currentBatchId: 'b1', items: [item('x', 0, { rev: 1 })], itemPos: { x: 0 } })
    const opening = useStore.getState().openBatch('b1')
    // The file failed (pushed, rev 30) while the batch's answer, read at rev 20, was on its way.
    useStore.getState().applyItem(item('x', 0, { rev: 30, status: 'failed', state: 'failed', error: 'This JPEG is damaged' }))
    answer({ ...summary('b1', { rev: 20 }), items: [item('x', 0, { rev: 20, status: 'segmenting' }), item('y', 1, { rev: 20 })] })
    await opening
    expect(useStore.getState().items.map((i) => [i.id, i.status])).toEqual([
      ['x', 'failed'],
      ['y', 'queued']
    ])
    // An event read before the one applied is older: kept out.
    useStore.getState().applyItem(item('x', 0, { rev: 25, status: 'encoding' }))
    expect(useStore.getState().items[0]!.status).toBe('failed')
    useStore.getState().applyItem(item('x', 0, { rev: 40, status: 'queued' }))
    expect(useStore.getState().items[0]!.status).toBe('queued')
  })
})

describe('api slice', () => {
  const KEY_INFO = {
    id: 'key_1',
    prefix: 'cdk_abcd',
    name: 'tool',
    credits: null,
    admin: false,
    kind: 'client' as const,
    created_at: 1,
    revoked_at: null
  }

  it('shows a created key once and marks a revoked one', async () => {
    const info = KEY_INFO
    const { t } = fake('http', {
      keysCreate: async () => ({ key: 'cdk_secret', info }),
      keysRevoke: async () => ({ ...info, revoked_at: 2 })
    })
    setTransport(t)
    expect(await useStore.getState().createKey({ name: 'tool' })).toBe(true)
    expect(useStore.getState().createdKey?.key).toBe('cdk_secret')
    useStore.getState().dismissCreatedKey()
    expect(useStore.getState().createdKey).toBeNull()
    await useStore.getState().revokeKey('key_1')
    expect(useStore.getState().keys?.[0]?.revoked_at).toBe(2)
  })

  it("keeps the refusal in words in the slice's error and changes nothing else; the next success clears it", async () => {
    const info = KEY_INFO
    let refuse = true
    const { t } = fake('http', {
      keysList: async () => [info],
      keysCreate: async () => {
        if (refuse) throw new AppError({ code: 'invalid_request', message: 'The name is too long.' }, 400)
        return { key: 'cdk_secret', info: { ...info, id: 'key_2' } }
      }
    })
    setTransport(t)
    await useStore.getState().loadKeys()
    expect(await useStore.getState().createKey({ name: 'x'.repeat(500) })).toBe(false)
    expect(useStore.getState().keysError).toContain('The name is too long.')
    expect(useStore.getState().keys?.map((k) => k.id)).toEqual(['key_1'])
    expect(useStore.getState().createdKey).toBeNull()
    refuse = false
    expect(await useStore.getState().createKey({ name: 'tool' })).toBe(true)
    expect(useStore.getState().keysError).toBeNull()
    expect(useStore.getState().keys?.map((k) => k.id)).toEqual(['key_1', 'key_2'])
  })
})
