#!/usr/bin/env node
// Entry of the `clipdesk` command: runs the CLI bundle built by `npm install` (prepare → build).
// Written for any Node that npm runs on: it picks Node 22 before loading the bundle.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url))
if (!existsSync(cli)) {
  console.error('clipdesk: the CLI is not built yet; run `npm run build` in the project folder')
  process.exit(1)
}

const MIN = [22, 12]
const tooOld = (version) => {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number)
  return major < MIN[0] || (major === MIN[0] && minor < MIN[1])
}

// `npm install` brings Node 22 into the project (the `node` dev dependency). Under an older
// system Node the command runs on that one, and says so in one line (stderr, so that output
// meant for scripts stays clean).
if (tooOld(process.version)) {
  const own = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url))
  if (!existsSync(own)) {
    console.error(
      `clipdesk: Node ${MIN.join('.')} or newer is required (this is ${process.version}); run \`npm install\` in the project folder to bring one`
    )
    process.exit(1)
  }
  // The allocator's settings (below) go with it: the project's Node then starts with them and
  // needs no second start of its own (~0.1 s).
  const child = spawn(own, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, ...allocatorEnv(), CLIPDESK_SYSTEM_NODE: process.version }
  })
  // A stop sent to this process (a service manager's or `kill`'s SIGTERM, a closed terminal's
  // SIGHUP) is passed on, or `clipdesk serve` would run on without it. Ctrl-C reaches both
  // processes from the terminal already: passing it on too would be a second Ctrl-C (which stops
  // `process` at once, without its report), so here it is only kept from ending this one first.
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  process.on('SIGINT', () => undefined)
  child.on('error', (err) => {
    console.error(`clipdesk: the project's Node could not be started: ${err.message}`)
    process.exit(1)
  })
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1)
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  })
} else {
  await runHere()
}

// glibc's allocator, set before anything is allocated (it reads its tunables only at start, so
// the process re-executes itself once, in place: same process id, so signals and supervisors see
// no difference). Measured in docs/pipeline.md, "Session settings":
// - blocks from 32 MiB up come from mmap and go back to the system when freed (a large photo's
//   planes do not stay in the heap after its job); smaller ones — a photo's planes of a few MB,
//   allocated and freed every job — stay in the heap: sent to mmap (a 1 MB threshold, the last
//   release's) each job maps and faults them in again, which cost 6–8 % of a 28-photo run where
//   page faults are dear, for ~0.05 GB less peak RSS once compose and encode had moved into the
//   render sandbox;
// - those blocks are backed by transparent huge pages where the system allows it (`madvise`
//   mode, the default of most distributions): the model's session loads and its first run
//   faults its ~1 GB of activations in with 512 times fewer page faults.
function allocatorEnv() {
  const TUNABLES = 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.hugetlb=1'
  const tunables = process.env.GLIBC_TUNABLES ?? ''
  if (process.platform !== 'linux' || tunables.includes('glibc.malloc.mmap_threshold')) return null
  return { GLIBC_TUNABLES: tunables ? `${tunables}:${TUNABLES}` : TUNABLES }
}

// The soft limit on open files needs no raising here (every connection, sandbox process and open
// file counts against it, and the listener's connection caps derive from it): Node raises it to
// the hard limit as it starts (PlatformInit in node.cc), and the hard limit is not ours to raise.
// docs/robustness.md, "Connection floods".

/** On the project's Node (or a new enough system one): the CLI, with the allocator set. */
async function runHere() {
  // Run by npx with the project's Node on PATH while npm itself runs on the older system Node.
  const systemNode = process.env.CLIPDESK_SYSTEM_NODE ?? /\bnode\/(v\d+\.\d+\.\d+)/.exec(process.env.npm_config_user_agent ?? '')?.[1]
  if (systemNode && tooOld(systemNode) && !process.env.CLIPDESK_NODE_NOTED) {
    console.error(`clipdesk: using the project's Node ${process.version} (the system Node ${systemNode} is older than ${MIN.join('.')})`)
    process.env.CLIPDESK_NODE_NOTED = '1' // once, also across the re-exec below
  }
  const allocator = allocatorEnv()
  if (allocator && typeof process.execve === 'function') {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...allocator })
  }
  await import(cli)
}
