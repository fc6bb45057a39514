/**
 * Batches of the app's main screen (docs/batches.md). The owner-key column this migration also
 * added when the engine's store held every table is now the engine's `005-keys-admin`.
 *
 * A batch item points at its current job by id without a foreign key: jobs are swept after
 * the retention time, while batches and the files copied into their destination stay.
 * An item keeps its own last status, progress, warnings and output paths for that reason.
 */
export default `
  CREATE TABLE batches (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    mode           TEXT NOT NULL,
    output_format  TEXT NOT NULL,
    params         TEXT,           -- JSON: string or object as given, or NULL
    destination    TEXT NOT NULL,
    created_at     INTEGER NOT NULL
  );

  CREATE TABLE batch_items (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    batch_id     TEXT NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    rel_path     TEXT NOT NULL,    -- path inside the batch, '/'-separated, mirrors dropped folders
    source_path  TEXT,             -- the original file on this machine, when known
    job_id       TEXT,             -- the current job (a retry makes a new one)
    status       TEXT NOT NULL,    -- waiting | a job status; done only once copied
    progress     INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    warnings     TEXT,             -- JSON string[]
    outputs      TEXT,             -- JSON string[]: files written into the destination
    started_at   INTEGER,
    finished_at  INTEGER
  );
  CREATE INDEX batch_items_batch ON batch_items(batch_id, seq);
  CREATE INDEX batch_items_job ON batch_items(job_id);
  CREATE INDEX batch_items_status ON batch_items(status, seq);
`
