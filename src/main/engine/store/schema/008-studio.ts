/**
 * Studio mode: worker keys (a kind of key that may only take work and return results) and the
 * workers seen by the coordinator, for `clipdesk workers` and the API screen.
 */
export default `
  ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'client';

  CREATE TABLE studio_workers (
    name        TEXT PRIMARY KEY,
    device      TEXT NOT NULL,
    jobs_done   INTEGER NOT NULL DEFAULT 0,
    busy_ms     INTEGER NOT NULL DEFAULT 0,
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL
  );
`
