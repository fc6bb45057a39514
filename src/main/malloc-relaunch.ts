/**
 * The app's main process runs the model (its worker thread holds the ONNX Runtime session), so
 * it needs the same glibc setting as `clipdesk` (bin/clipdesk.js): blocks above 1 MB served
 * from mmap, so a run's freed activations go back to the OS and peak RSS stays near 1.05 GB
 * instead of ~1.4 GB (docs/pipeline.md, Memory). glibc reads MALLOC_MMAP_THRESHOLD_ only when
 * the process starts, and Electron cannot re-exec in place (Chromium's threads are already up),
 * so on Linux the app relaunches itself once with the variable set, before any window, engine
 * or model exists. The relaunched process inherits this environment (`app.relaunch` keeps it).
 * Other platforms' allocators return large blocks by themselves; nothing to do there.
 */
import { app } from 'electron'

const MMAP_THRESHOLD = '1048576'

/** True when this process is about to be replaced: the caller must do nothing else. */
export function relaunchWithMallocSettings(): boolean {
  if (process.platform !== 'linux' || process.env.MALLOC_MMAP_THRESHOLD_) return false
  process.env.MALLOC_MMAP_THRESHOLD_ = MMAP_THRESHOLD
  app.relaunch()
  app.exit(0)
  return true
}
