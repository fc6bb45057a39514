/**
 * Execution providers: which ONNX Runtime providers to try for a device setting, and the
 * session options each gets. A provider that fails to load falls back to the CPU with a warning
 * (the session is created again with the CPU alone), and the device that ran is reported.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ActualDevice, Device } from '../../../shared/models'

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
 * Session options per provider. CPU: intra-op threads = cores, no arena, no memory pattern
 * (measured in docs/pipeline.md: same speed, ~0.5 GB lower peak), and threads that sleep
 * rather than spin between parallel sections: a spinning thread holds its core while the
 * engine decodes, refines and encodes other photos beside the run (`npm run bench`: pipeline
 * 2 % faster, 7 % less CPU, inference alone unchanged). GPU providers keep the
 * same CPU threads (nodes a provider cannot take run on the CPU) and leave the device allocator
 * as is: no GPU was available to measure other settings.
 */
export function providerOptions(device: ActualDevice, threads: number): Record<string, unknown> {
  const common = {
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: false,
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } }
  }
  if (device === 'cpu') return { ...common, executionProviders: ['cpu'], intraOpNumThreads: threads }
  // DirectML needs the memory pattern off and sequential execution (its documented constraints).
  return { ...common, executionProviders: [device === 'directml' ? 'dml' : device], intraOpNumThreads: threads }
}
