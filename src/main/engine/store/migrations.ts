/**
 * Schema migrations by name, applied in list order; the `migrations` table records which ran.
 * Named rather than numbered so that features can add theirs independently.
 * Never edit a shipped migration: add a new one at the end of the list.
 */
import core from './schema/001-core'
import presets from './schema/003-presets'
import watch from './schema/004-watch'
import batches from './schema/005-batches'
import maskCache from './schema/002-mask-cache'
import models from './schema/006-models'
import batchResume from './schema/007-batch-resume'
import studio from './schema/008-studio'
import batchInterrupted from './schema/009-batch-interrupted'
import batchItemDevice from './schema/010-batch-item-device'
import studioWorkerKeys from './schema/011-studio-worker-keys'

export interface Migration {
  name: string
  sql: string
}

export const MIGRATIONS: Migration[] = [
  { name: '001-core', sql: core },
  { name: '005-batches', sql: batches },
  { name: '004-watch', sql: watch },
  { name: '003-presets', sql: presets },
  { name: '002-mask-cache', sql: maskCache },
  { name: '006-models', sql: models },
  { name: '007-batch-resume', sql: batchResume },
  { name: '008-studio', sql: studio },
  { name: '009-batch-interrupted', sql: batchInterrupted },
  { name: '010-batch-item-device', sql: batchItemDevice },
  { name: '011-studio-worker-keys', sql: studioWorkerKeys }
]
