/**
 * Clipdesk installs like any Node command-line tool: `npm pack`, `npm install -g` of the tarball
 * into an empty prefix (so nothing of this checkout's node_modules can be found), then
 * `clipdesk process photo.jpg --out o` in an empty folder. The installed package must bring the
 * model's bytes (`@imgly/background-removal-data`) and no second native runtime: an installed
 * `onnxruntime-node` or `sharp` other than the project's own would show up in its tree.
 *
 * The install reaches the npm registry (as `npm install` itself does); nothing else.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { sceneJpeg, SCENE } from './helpers/fixtures'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const work = mkdtempSync(path.join(tmpdir(), 'clipdesk-pack-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The versions of every installed copy of `name` in a node_modules tree (nested copies included). */
function installedVersions(nodeModules: string, name: string): string[] {
  const found: string[] = []
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const full = path.join(dir, entry.name)
      if (entry.name.startsWith('@')) {
        walk(full) // a scope folder holds packages
        continue
      }
      const manifest = path.join(full, 'package.json')
      if (existsSync(manifest)) {
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string }
        if (pkg.name === name) found.push(pkg.version ?? '?')
      }
      walk(path.join(full, 'node_modules'))
    }
  }
  walk(nodeModules)
  return found
}

describe('npm pack, npm install -g, clipdesk process from any folder', () => {
  it('installs from the tarball into an empty prefix and cuts out a photo offline', async () => {
    const packDir = path.join(work, 'pack')
    const prefix = path.join(work, 'prefix')
    const folder = path.join(work, 'empty-folder')
    for (const dir of [packDir, prefix, folder]) mkdirSync(dir)
    // The Node running the tests is new enough; the installed command's `#!/usr/bin/env node` finds it first.
    const env = {
      ...process.env,
      PATH: `${path.join(prefix, 'bin')}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`
    }
    // `npm test` has just built `out/`; the pack takes it as it is.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], { cwd: ROOT, env, stdio: 'pipe' })
    const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'))
    expect(tarball).toMatch(/^clipdesk-.*\.tgz$/)
    // A global install reads no project .npmrc: onnxruntime-node's CUDA download is declined here.
    const install = spawnSync('npm', ['install', '-g', '--no-audit', '--no-fund', '--prefix', prefix, path.join(packDir, tarball!)], {
      cwd: folder,
      env: { ...env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
      encoding: 'utf8'
    })
    expect(install.status, install.stderr).toBe(0)

    const tree = path.join(prefix, 'lib', 'node_modules')
    expect(installedVersions(tree, 'onnxruntime-node')).toHaveLength(1)
    expect(installedVersions(tree, 'sharp')).toHaveLength(1)
    expect(installedVersions(tree, '@imgly/background-removal-node')).toEqual([])
    expect(installedVersions(tree, '@imgly/background-removal-data')).toHaveLength(1)

    writeFileSync(path.join(folder, 'photo.jpg'), await sceneJpeg())
    const run = spawnSync('clipdesk', ['process', 'photo.jpg', '--out', 'o'], {
      cwd: folder,
      env: { ...env, CLIPDESK_DATA_DIR: path.join(work, 'data') },
      encoding: 'utf8'
    })
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
    const meta = await sharp(path.join(folder, 'o', 'photo.png')).metadata()
    expect(meta).toMatchObject({ format: 'png', width: SCENE.width, height: SCENE.height, channels: 4 })
    // The ball is kept and the gradient around it removed.
    const { data, info } = await sharp(path.join(folder, 'o', 'photo.png'))
      .extractChannel(3)
      .raw()
      .toBuffer({ resolveWithObject: true })
    const at = (x: number, y: number): number => data[y * info.width + x]!
    expect(at(Math.round(SCENE.cx), Math.round(SCENE.cy))).toBeGreaterThan(200)
    expect(at(2, 2)).toBeLessThan(30)
  })
})
