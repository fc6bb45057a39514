import type { IpcHandlers } from '../../shared/ipc'
import type { PresetSaveRequest } from '../../shared/presets'
import type { PresetHandlersPort } from '../engine/ports'

export type PresetHandlers = Pick<IpcHandlers, 'presetsList' | 'presetsSave' | 'presetsDelete'>

/**
 * Presets over IPC (the app's Presets screen). Plain results; a refusal throws the engine's
 * EngineError (422 `validation_failed` with details naming `name`, `description`, `params` or
 * `params.<key>`), which the bridge hands to the renderer as an error envelope.
 */
export function createPresetHandlers(engine: PresetHandlersPort): PresetHandlers {
  return {
    async presetsList() {
      return engine.presetsList()
    },
    async presetsSave(request: PresetSaveRequest) {
      return engine.savePreset(request)
    },
    async presetsDelete(name: string) {
      return engine.deletePreset(name)
    }
  }
}
