/**
 * Execution providers: which ONNX Runtime providers to try for a device setting, and the
 * session options each gets. A provider that fails to load falls back to the CPU with a warning
 * (the session is created again with the CPU alone), and the device that ran is reported.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ActualDevice, Device } from '../../../../shared/models'

/** Whether onnxruntime-node's folder holds the CUDA provider library (a separate install on Linux). */
export function cudaInstalled(): boolean {
  try {
    const main = createRequire(import.meta.url).resolve('onnxruntime-node')
    const bin = path.join(path.dirname(main), '..', 'bin', 'napi-v6', process.platform, process.arch)
    return existsSync(path.join(bin, process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so'))
  } catch {
    return false
  }
}

/** The device `auto` means on this machine. */
export function resolveDevice(device: Device, platform = process.platform): ActualDevice {
  if (device !== 'auto') return device
  if (platform === 'win32') return 'directml'
  if (platform === 'darwin') return 'coreml'
  return cudaInstalled() ? 'cuda' : 'cpu'
}

/**
 * Session options per provider (measured in docs/pipeline.md, "Session settings").
 * - ONNX Runtime's CPU arena on: a run's activations (~1 GB for IS-Net at 1024²) stay mapped
 *   between runs. Without it every run maps, faults in and returns them; where page faults are
 *   dear (virtual machines) that cost 3× the model's own time. Off only on machines with little
 *   memory (`arena`), where holding that gigabyte between runs costs more than the faults.
 * - Memory pattern off: with it ONNX Runtime plans one block for the whole run on top of the
 *   arena (2.3 GB peak against 1.5 GB) for no measurable speed.
 * - Threads that sleep rather than spin between parallel sections: a spinning thread holds its
 *   core while the engine decodes, refines and encodes the neighbouring photos beside the run.
 * GPU providers keep the same CPU threads (nodes a provider cannot take run on the CPU) and
 * leave the device allocator as is: no GPU was available to measure other settings.
 */
export function providerOptions(device: ActualDevice, threads: number, arena = true): Record<string, unknown> {
  const common = {
    interOpNumThreads: 1,
    intraOpNumThreads: threads,
    executionMode: 'sequential',
    enableCpuMemArena: arena,
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } }
  }
  if (device === 'cpu' || device === 'wasm') return { ...common, executionProviders: ['cpu'] }
  // DirectML needs the memory pattern off and sequential execution (its documented constraints).
  return { ...common, executionProviders: [device === 'directml' ? 'dml' : device] }
}

/**
 * Whether the CPU arena is kept: on unless the machine has under 6 GB of memory, where the
 * arena's ~1.5 GB held between runs (against ~1.2 GB at a run's peak without it) is too large a
 * share of what the app, the photos and the system need.
 */
export function keepsArena(totalBytes: number): boolean {
  return totalBytes >= 6 * 2 ** 30
}
