#!/usr/bin/env node
/**
 * Runs a TypeScript benchmark of this folder on a fresh clone after `npm install`, with no
 * separate build step: `node bench/run.mjs <pipeline|quality|review|session|touchup> [options]`.
 *
 * The engine's sources are TypeScript with extensionless imports, which plain Node cannot
 * load. Vite (already a dev dependency) bundles the benchmark with the engine code it uses into
 * node_modules/.cache/clipdesk-bench/ (dependencies stay external), and that plain ES module is
 * what runs, with the refine thread's entry (`CLIPDESK_REFINE_SCRIPT`), so a benchmark never runs
 * an older build of it. Child processes of a benchmark import the bundle directly, so Vite is
 * never loaded in a process whose memory is measured. Bundling takes a second or two, outside all figures.
 */
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const entries = {
  speed: 'speed.ts',
  stages: 'stages.ts',
  pipeline: 'pipeline.ts',
  quality: 'quality.ts',
  review: 'review.ts',
  session: 'session-options.ts',
  touchup: 'touchup.ts'
}
const [name, ...args] = process.argv.slice(2)
if (!name || !(name in entries)) {
  console.error(`usage: node bench/run.mjs <${Object.keys(entries).join('|')}> [options]`)
  process.exit(2)
}
process.env.CLIPDESK_BENCH_ROOT ??= resolve(here, '..')
const outDir = join(here, '..', 'node_modules', '.cache', 'clipdesk-bench')
if (process.env.CLIPDESK_BENCH_BUILT !== name) {
  const { build } = await import('vite')
  await build({
    configFile: false,
    logLevel: 'error',
    build: {
      ssr: true,
      outDir,
      emptyOutDir: false,
      minify: false,
      rollupOptions: {
        // The refine thread from the same sources too: the app's build in out/main may be older.
        input: {
          [name]: join(here, entries[name]),
          [`${name}-refine-thread`]: join(here, '..', 'src', 'main', 'engine', 'pipeline', 'refine', 'refine-thread-entry.ts')
        },
        output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: `${name}-[name].mjs` }
      }
    }
  })
  process.env.CLIPDESK_BENCH_BUILT = name // children inherit it and skip the build
}
process.env.CLIPDESK_REFINE_SCRIPT = join(outDir, `${name}-refine-thread.mjs`)
const module = await import(pathToFileURL(join(outDir, `${name}.mjs`)).href)
process.exitCode = await module.main(args)
