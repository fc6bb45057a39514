/**
 * Model masks by input content (docs/pipeline.md, "Mask cache"), so
 * the same photo with another preset or output format does not run the model again.
 * `mask` is the model's own 1024² output as an 8-bit greyscale PNG (tens of KB), before any
 * resizing or refinement; `model` names the weights and the preprocessing that made it.
 */
export default `
  CREATE TABLE mask_cache (
    input_hash TEXT NOT NULL,      -- SHA-256 of the input file's bytes, hex
    model      TEXT NOT NULL,      -- e.g. isnet-medium/1
    mask       BLOB NOT NULL,      -- PNG, 1 channel
    bytes      INTEGER NOT NULL,   -- length of mask
    created_at INTEGER NOT NULL,
    used_at    INTEGER NOT NULL,   -- last hit or insert: LRU order and retention
    PRIMARY KEY (input_hash, model)
  );
  CREATE INDEX mask_cache_used ON mask_cache(used_at);
  `
