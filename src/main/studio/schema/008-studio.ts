/**
 * Studio mode: the workers seen by the coordinator, for `clipdesk workers` and the API screen.
 * The worker-key column this migration also added when the engine's store held every table is
 * now the engine's `008-keys-kind`.
 */
export default `
  CREATE TABLE studio_workers (
    name        TEXT PRIMARY KEY,
    device      TEXT NOT NULL,
    jobs_done   INTEGER NOT NULL DEFAULT 0,
    busy_ms     INTEGER NOT NULL DEFAULT 0,
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL
  );
`
