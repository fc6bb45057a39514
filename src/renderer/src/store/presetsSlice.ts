import { type JobStatusBody, isEnded } from '../../../shared/api'
import { previewRequest } from '../../../shared/presets'
import { AppError, errorText, transport } from '../transport'
import { run } from './run'
import type { PresetPreview, PresetsSlice, Slice } from './types'

const IDLE: PresetPreview = { jobId: null, status: 'idle', progress: 0, url: null, warnings: [], error: null }

export const createPresetsSlice: Slice<PresetsSlice> = (set, get) => ({
  presets: null,
  presetsError: null,
  preview: IDLE,

  async loadPresets() {
    await run(set, 'presetsError', async () => {
      set({ presets: await transport().presetsList(), presetsError: null })
    })
  },
  async savePreset(req) {
    await transport().presetsSave(req)
    await get().loadPresets()
  },
  async deletePreset(name) {
    await run(set, 'presetsError', async () => {
      await transport().presetsDelete(name)
      set({ presets: (get().presets ?? []).filter((p) => p.name !== name), presetsError: null })
    })
  },

  async runPreview(params, sample) {
    const t = transport()
    const previous = get().preview.jobId
    if (previous) void t.jobCancel(previous).catch(() => undefined)
    set({ preview: { ...IDLE, status: 'running' } })
    try {
      const res = await t.upload(
        previewRequest(params, { bytes: new Uint8Array(await sample.arrayBuffer()), name: 'sample.png', type: sample.type || 'image/png' })
      )
      if (res.status !== 202 || !('job_id' in res.body)) {
        throw new AppError(
          'error' in res.body ? res.body.error : { code: 'internal_error', message: 'The preview was refused.' },
          res.status
        )
      }
      set({ preview: { ...get().preview, jobId: res.body.job_id } })
      // The job may have ended before its id was known here.
      const { body } = await t.status(res.body.job_id)
      if ('job_id' in body) await get().applyPreviewJob({ job_id: body.job_id, status: body.status, progress: body.progress })
    } catch (err) {
      set({ preview: { ...IDLE, status: 'failed', error: errorText(err) } })
    }
  },
  async applyPreviewJob(e) {
    const preview = get().preview
    if (e.job_id !== preview.jobId || preview.status !== 'running') return
    if (!isEnded(e.status)) {
      set({ preview: { ...preview, progress: Math.max(preview.progress, e.progress) } })
      return
    }
    const t = transport()
    const { body } = await t.status(e.job_id)
    const job = body as JobStatusBody
    // The status body of a final_url job carries no warnings: the app asks for the lines a batch would show.
    const warnings = job.status === 'done' ? await t.jobWarnings(e.job_id).catch(() => []) : []
    if (get().preview.jobId !== e.job_id) return // a newer preview started meanwhile
    if (job.status === 'done') set({ preview: { ...preview, status: 'done', progress: 100, url: job.final_url, warnings } })
    else set({ preview: { ...preview, status: 'failed', error: job.error?.message ?? 'The preview failed.' } })
  }
})
