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
await import(cli)
