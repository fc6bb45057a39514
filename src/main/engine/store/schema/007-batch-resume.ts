/**
 * Batches write what was asked: `all_variations` is 1 when every variation of each job is
 * copied into the destination, else the primary only.
 */
export default `
  ALTER TABLE batches ADD COLUMN all_variations INTEGER NOT NULL DEFAULT 0;
`
