/**
 * Text the app, the CLI and the API show speaks to users: no references to the product's
 * internal specification ("SPEC §…"); and comments point at the docs in the repository, not at
 * that document, which is not in it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '../src')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|html|json)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
}

/** The file without its comments (block comments, then line comments not inside a URL). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1')
}

describe('user-facing text', () => {
  it('never refers to the specification', () => {
    const found = sources(SRC).flatMap((file) =>
      withoutComments(readFileSync(file, 'utf8'))
        .split('\n')
        .filter((line) => /\bSPEC\b|§/.test(line))
        .map((line) => `${file}: ${line.trim()}`)
    )
    expect(found).toEqual([])
  })

  it('has comments that point at docs/, not at the specification', () => {
    const SPEC = 'SPEC ' + '§' // split, so that this file does not name itself
    const found = [...sources(SRC), ...sources(join(SRC, '../bench'))].filter((file) => readFileSync(file, 'utf8').includes(SPEC))
    expect(found).toEqual([])
  })
})
