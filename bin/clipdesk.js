#!/usr/bin/env node
// Entry of the `clipdesk` command: runs the CLI bundle built by `npm install` (prepare → build).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url))
if (!existsSync(cli)) {
  console.error('clipdesk: the CLI is not built yet; run `npm run build` in the project folder')
  process.exit(1)
}
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  console.error(`clipdesk: Node 22.12 or newer is required (this is ${process.version})`)
  process.exit(1)
}
// glibc keeps freed mid-sized blocks (the model's per-run activations) in its heap, so RSS
// creeps up to ~1.4 GB; served from mmap above 1 MB they go back to the OS and the peak stays
// near 1.07 GB (docs/pipeline.md, Memory). glibc reads this only at start: re-exec once, in
// place (same process id, so signals and supervisors see no difference).
const MMAP_THRESHOLD = '1048576'
if (process.platform === 'linux' && !process.env.MALLOC_MMAP_THRESHOLD_ && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD
  })
}
await import(cli)
