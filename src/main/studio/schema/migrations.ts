/** Studio mode's tables, applied by `WorkerRegistry` when it opens (names as shipped; see engine/store/migrations.ts). */
import type { Migration } from '../../engine/feature-tables'
import studio from './008-studio'
import studioWorkerKeys from './011-studio-worker-keys'

export const STUDIO_MIGRATIONS: Migration[] = [
  { name: '008-studio', sql: studio },
  { name: '011-studio-worker-keys', sql: studioWorkerKeys }
]
