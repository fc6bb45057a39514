/**
 * What the engine's sandbox processes are started with (`pool.ts`): the built entry script, and
 * each pool's memory limit and priority. Light on purpose (no pipeline code): `cli.ts` uses it
 * to start the processes an engine with default settings needs first, ahead of the engine.
 */
import { findBuiltScript } from '../built-script'
import { resolveOptions } from '../options'
import { startSandboxAhead, type ForkSpec } from './fork'

const SCRIPT = 'decode-child.js'

/** The built sandbox entry (`out/main/decode-child.js`, an entry of electron-vite's main build). */
export function findSandboxScript(): string {
  const fromEnv = process.env.CLIPDESK_SANDBOX_SCRIPT
  if (fromEnv) return fromEnv
  const found = findBuiltScript(SCRIPT)
  if (found) return found
  throw new Error(`The decoder sandbox (${SCRIPT}) is not built: run \`npm run build\``)
}

/**
 * Memory of a process composing and encoding one job's outputs: the input, its alpha and
 * colours as handed over, and the variations of a job at its output limits (docs/api.md §15).
 * Measured peaks: docs/robustness.md, "Cost bounded by what was paid".
 */
export const RENDER_MEMORY_BYTES = 3 * 2 ** 30

/** Decodes, probes and previews: their memory limit is set by the largest image accepted. */
export function decodeSpec(script: string, memoryBytes: number): ForkSpec {
  return { script, memoryBytes }
}

/** Compose and encode: a large output keeps the cores busy for a minute, so `/health` and status must not wait on it. */
export function renderSpec(script: string, memoryBytes = RENDER_MEMORY_BYTES): ForkSpec {
  return { script, memoryBytes, nice: 10 }
}

/**
 * Starts the processes an engine with default settings starts first (`DecodeSandbox.prewarm`:
 * one decode, one probe, one render process) before the engine exists; its pools take them.
 * Nothing happens where the sandbox is not built (the engine then says so).
 */
export function startSandboxesAhead(): void {
  let script: string
  try {
    script = findSandboxScript()
  } catch {
    return
  }
  const { decodeMemoryBytes } = resolveOptions({ dataDir: '' })
  startSandboxAhead(decodeSpec(script, decodeMemoryBytes))
  startSandboxAhead(decodeSpec(script, decodeMemoryBytes))
  startSandboxAhead(renderSpec(script))
}
