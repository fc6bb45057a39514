/**
 * Studio workers by worker key: a key may register a bounded number of worker names, so the
 * table is keyed by (key, name). Rows from before have no key ('').
 */
export default `
  CREATE TABLE studio_workers_by_key (
    key_id      TEXT NOT NULL,
    name        TEXT NOT NULL,
    device      TEXT NOT NULL,
    jobs_done   INTEGER NOT NULL DEFAULT 0,
    busy_ms     INTEGER NOT NULL DEFAULT 0,
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL,
    PRIMARY KEY (key_id, name)
  );
  INSERT INTO studio_workers_by_key (key_id, name, device, jobs_done, busy_ms, first_seen, last_seen)
    SELECT '', name, device, jobs_done, busy_ms, first_seen, last_seen FROM studio_workers;
  DROP TABLE studio_workers;
  ALTER TABLE studio_workers_by_key RENAME TO studio_workers;
`
