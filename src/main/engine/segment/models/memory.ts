/**
 * The memory check before a model is loaded. A session needs its weights (about the file's
 * size) plus the activations of a run; for IS-Net medium (176 MB file) a run peaks near 1 GB,
 * i.e. about 0.9 GB above the weights, and activations grow with the input size, not the file.
 * A 1 GB BiRefNet file is refused up front on a machine that cannot hold it, instead of the
 * process being killed by the OS half way through a job.
 */
import os from 'node:os'
import { JobFailure } from '../../errors'

const GB = 2 ** 30

/** Bytes a session of a model file of `fileBytes` fed `side`² needs at its peak (estimate). */
export function sessionBytesNeeded(fileBytes: number, side: number): number {
  // weights ×2 while the session is built (file bytes + initialisers), activations scaled from
  // IS-Net at 1024² (~0.9 GB)
  return 2 * fileBytes + 0.9 * GB * (side / 1024) ** 2
}

/**
 * Throws `model_unavailable` when loading needs more than the memory free now plus what the
 * session being replaced gives back (`freeing`).
 */
export function assertMemoryFor(name: string, fileBytes: number, side: number, freeing = 0, free = os.freemem()): void {
  const need = sessionBytesNeeded(fileBytes, side)
  const available = free + freeing
  if (need > available) {
    throw new JobFailure(
      'model_unavailable',
      `the model ${name} needs about ${(need / GB).toFixed(1)} GB of memory to run; ${(available / GB).toFixed(1)} GB are available. Close other programs or choose a smaller model.`
    )
  }
}
