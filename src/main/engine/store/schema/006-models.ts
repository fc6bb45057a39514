/**
 * The model registry (models added by the user; the built-ins are not stored) and, per job,
 * the model and the device that made its mask. The default model and the device setting are
 * `meta` rows (`default-model`, `device`).
 */
export default `
  CREATE TABLE models (
    name       TEXT PRIMARY KEY,
    family     TEXT NOT NULL,      -- known descriptor id or 'custom'
    path       TEXT NOT NULL,      -- the ONNX file, where the user keeps it
    sha256     TEXT NOT NULL,      -- of the file when added; checked at each load
    bytes      INTEGER NOT NULL,
    descriptor TEXT NOT NULL,      -- JSON ModelDescriptor
    added_at   INTEGER NOT NULL
  );
  ALTER TABLE jobs ADD COLUMN model TEXT;
  ALTER TABLE jobs ADD COLUMN device TEXT;
  `
