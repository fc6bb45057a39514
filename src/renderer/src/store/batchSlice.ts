import type { BatchFileRef, BatchItemView, BatchRequest } from '../../../shared/batches'
import { loadDraft, saveDraft } from '../lib/draft'
import type { PickedFile } from '../lib/files'
import { AppError, errorText, transport } from '../transport'
import type { StagedFile, BatchDraft, BatchSlice, Slice } from './types'
import { inLanes } from '../../../shared/lanes'
import { run } from './run'

const DEFAULT_DRAFT: BatchDraft = {
  name: '',
  preset: '',
  mode: 'clipping',
  output_format: 'png',
  destination: '',
  all_variations: false,
  name_template: ''
}

let stagedSeq = 0
const stagedKey = (f: PickedFile): string => `${f.relPath}\0${f.file.size}\0${f.file.lastModified}`

export function requestOf(draft: BatchDraft): BatchRequest {
  return draft.preset
    ? {
        mode: 'params',
        output_format: draft.output_format,
        params: draft.preset,
        all_variations: draft.all_variations,
        name_template: draft.name_template.trim() || null
      }
    : {
        mode: draft.mode,
        output_format: draft.output_format,
        params: null,
        all_variations: draft.all_variations,
        name_template: draft.name_template.trim() || null
      }
}

function positions(items: BatchItemView[]): Record<string, number> {
  const pos: Record<string, number> = {}
  for (const [i, item] of items.entries()) pos[item.id] = i
  return pos
}

export const createBatchSlice: Slice<BatchSlice> = (set, get) => ({
  staged: [],
  draft: loadDraft(DEFAULT_DRAFT),
  batches: [],
  currentBatchId: null,
  items: [],
  itemPos: {},
  starting: null,
  batchError: null,
  destinationProblem: null,
  refused: [],
  outputNotice: null,
  viewerItemId: null,
  problemItemId: null,

  stage(files) {
    const seen = new Set(get().staged.map(stagedKey))
    const fresh: StagedFile[] = []
    for (const f of files) {
      const key = stagedKey(f)
      if (seen.has(key)) continue
      seen.add(key)
      fresh.push({ ...f, id: `s${++stagedSeq}` })
    }
    if (fresh.length > 0) set({ staged: [...get().staged, ...fresh], screen: 'batches', batchError: null })
  },
  unstage: (id) => set({ staged: get().staged.filter((f) => f.id !== id) }),
  clearStaged: () => set({ staged: [] }),
  setDraft: (patch) => {
    const draft = { ...get().draft, ...patch }
    saveDraft(draft)
    set({ draft, ...('destination' in patch && { destinationProblem: null }) })
  },
  setViewer: (viewerItemId) => set({ viewerItemId }),
  setProblem: (problemItemId) => set({ problemItemId }),
  dismissBatchMessages: () => set({ batchError: null, refused: [], outputNotice: null }),

  applyBatch(summary) {
    const batches = get().batches
    const i = batches.findIndex((b) => b.id === summary.id)
    // An answer read before a summary already pushed (HTTP answers and events race) is older: kept out.
    if (i >= 0 && batches[i]!.rev > summary.rev) return
    set({ batches: i < 0 ? [summary, ...batches] : batches.map((b, j) => (j === i ? summary : b)) })
  },
  applyItem(item) {
    const { currentBatchId, items, itemPos } = get()
    if (item.batch_id !== currentBatchId) return
    const at = itemPos[item.id]
    if (at === undefined) {
      const next = [...items, item].sort((a, b) => a.seq - b.seq)
      set({ items: next, itemPos: positions(next) })
    } else {
      // An item read before one already pushed (answers and events race) is older: kept out.
      if (items[at]!.rev > item.rev) return
      const next = items.slice()
      next[at] = item
      set({ items: next })
    }
  },

  async loadBatches() {
    await run(set, 'batchError', async () => {
      const batches = await transport().batchesList()
      set({ batches })
      const { currentBatchId } = get()
      if (currentBatchId === null && batches[0]) await get().openBatch(batches[0].id)
      else if (currentBatchId !== null) await get().openBatch(currentBatchId)
    })
  },
  async openBatch(id) {
    if (id === null) {
      set({ currentBatchId: null, items: [], itemPos: {}, viewerItemId: null, problemItemId: null })
      return
    }
    await run(set, 'batchError', async () => {
      const detail = await transport().batchGet(id)
      const { items: read, ...summary } = detail
      // Items pushed while the answer was on its way are newer than it: they stay.
      const current = get().currentBatchId === id ? get() : null
      const items = read.map((i) => {
        const at = current?.itemPos[i.id]
        const mine = at === undefined ? undefined : current!.items[at]
        return mine && mine.rev > i.rev ? mine : i
      })
      set({ currentBatchId: id, items, itemPos: positions(items) })
      get().applyBatch(summary)
    })
  },

  async startBatch() {
    const { staged, draft } = get()
    if (staged.length === 0) return set({ batchError: 'Add files or folders first.' })
    const destination = draft.destination.trim() || get().appInfo?.defaultDestination || ''
    const request = requestOf(draft)
    const t = transport()
    // Counted before the first file is sent: the destination is checked for the room they need,
    // and the batch shows this total from the start. The files that are not images are listed
    // with the batch but neither sent nor counted ("Start (15 files)", "Sending 3/15…").
    const images = staged.filter((f) => !f.notImage)
    set({ starting: { sent: 0, total: images.length }, batchError: null, destinationProblem: null, refused: [], outputNotice: null })
    const expected = { files: images.length, bytes: images.reduce((n, f) => n + f.file.size, 0) }
    try {
      const summary = await t.batchCreate({ name: draft.name.trim() || undefined, request, destination, expected })
      set({ currentBatchId: summary.id, items: [], itemPos: {}, staged: [] })
      get().applyBatch(summary)
      const refused: Array<{ rel_path: string; error: string }> = []
      // References in staged order (browser uploads finish out of order): undefined while
      // pending, null when refused; sent in order as soon as a prefix is complete.
      const refs: Array<BatchFileRef | null | undefined> = new Array(staged.length)
      let next = 0
      let pending: BatchFileRef[] = []
      // One add at a time, in order: the batch keeps the files in the order they were staged.
      let adding: Promise<void> = Promise.resolve()
      const flush = (): Promise<void> => {
        if (pending.length === 0) return adding
        const files = pending
        pending = []
        adding = adding.then(async () => {
          const r = await t.batchAdd({ batch_id: summary.id, files })
          refused.push(...r.refused)
        })
        return adding
      }
      // Paths are cheap to send in large chunks; browser uploads go a few at a time.
      const chunk = t.kind === 'ipc' ? 500 : 10
      let sent = 0
      await inLanes(
        staged.map((f, i) => ({ f, i })),
        t.kind === 'ipc' ? 1 : 3,
        async ({ f, i }) => {
          // A file that is not an image, or that could not be sent, is still listed with the
          // batch (and in its report), with the reason.
          if (f.notImage) refs[i] = { refused: 'Not an image: skipped.', rel_path: f.relPath, not_image: true }
          else {
            try {
              refs[i] = await t.fileRef(f.file, f.relPath, request)
            } catch (err) {
              refs[i] = { refused: errorText(err), rel_path: f.relPath }
            }
          }
          if (!f.notImage) {
            sent++
            set({ starting: { sent, total: images.length } })
          }
          while (next < refs.length && refs[next] !== undefined) {
            const ref = refs[next++]
            if (ref) pending.push(ref)
          }
          if (pending.length >= chunk) await flush()
        }
      )
      await flush()
      set({ refused })
      await get().openBatch(summary.id)
    } catch (err) {
      // When the batch could not be made, the files stay staged so the user can fix and start again.
      const problem = err instanceof AppError ? err.details.find((d) => d.field === 'destination') : undefined
      if (problem && err instanceof AppError) {
        set({
          destinationProblem: { message: problem.issue, detail: err.details.find((d) => d.field === 'destination.system')?.issue ?? null }
        })
      } else set({ batchError: errorText(err) })
    } finally {
      set({ starting: null })
    }
  },

  async cancelBatch(itemId) {
    const batchId = get().currentBatchId
    if (!batchId) return
    await run(set, 'batchError', async () => {
      get().applyBatch(await transport().batchCancel({ batch_id: batchId, ...(itemId ? { item_id: itemId } : {}) }))
    })
  },
  async retryBatch(itemId) {
    const batchId = get().currentBatchId
    if (!batchId) return
    await run(set, 'batchError', async () => {
      get().applyBatch(await transport().batchRetry({ batch_id: batchId, ...(itemId ? { item_id: itemId } : {}) }))
    })
  },
  async resumeBatch() {
    const batchId = get().currentBatchId
    if (!batchId) return
    await run(set, 'batchError', async () => {
      get().applyBatch(await transport().batchResume(batchId))
    })
  },
  async openOutput(itemId) {
    const batchId = get().currentBatchId
    if (!batchId) return
    await run(set, 'batchError', async () => {
      const r = await transport().batchOpenOutput({ batch_id: batchId, ...(itemId ? { item_id: itemId } : {}) })
      set({ outputNotice: r.opened ? null : r.error ? `${r.error} (${r.path})` : `Output folder: ${r.path}` })
    })
  },
  async removeBatch(id) {
    await run(set, 'batchError', async () => {
      await transport().batchDelete(id)
      const batches = get().batches.filter((b) => b.id !== id)
      set({ batches })
      if (get().currentBatchId === id) await get().openBatch(null)
    })
  }
})
