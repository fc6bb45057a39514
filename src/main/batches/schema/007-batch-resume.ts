/**
 * Batches write what was asked:
 * - `all_variations`: 1 when every variation of each job is copied into the destination, else
 *   the primary only;
 * - `name_template`: the output names (tokens as for watched folders); NULL for the default
 *   `{name}.{ext}` / `{name}.{variation}.{ext}`.
 */
export default `
  ALTER TABLE batches ADD COLUMN all_variations INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE batches ADD COLUMN name_template TEXT;
`
