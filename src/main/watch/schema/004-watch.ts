/**
 * Watched folders (docs/watch.md): the folders, one row per file path seen in each, the ledger
 * of contents already processed, the output files written (so that a name is never given to two
 * inputs), recent activity, and the lease that let only one process watch (dropped since by
 * `011-watch-no-lease`: the engine's run lock does that).
 *
 * Files point at their job by id without a foreign key: jobs are swept after the retention
 * time, while the watch history stays.
 */
export default `
  CREATE TABLE watch_folders (
    id             TEXT PRIMARY KEY,
    path           TEXT NOT NULL UNIQUE,   -- absolute
    recursive      INTEGER NOT NULL,
    mode           TEXT NOT NULL,
    params         TEXT,
    output_format  TEXT NOT NULL,
    output_dir     TEXT,                   -- NULL: <path>/clipdesk-out
    name_template  TEXT NOT NULL,
    originals      TEXT NOT NULL,          -- keep | move
    paused         INTEGER NOT NULL DEFAULT 0,
    revision       INTEGER NOT NULL DEFAULT 1,  -- bumped on every change; a running service reloads
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
  );

  CREATE TABLE watch_files (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    folder_id      TEXT NOT NULL REFERENCES watch_folders(id) ON DELETE CASCADE,
    rel_path       TEXT NOT NULL,          -- '/'-separated, inside the folder
    size           INTEGER,                -- of the version hashed
    mtime_ms       REAL,
    content_hash   TEXT,                   -- sha256 of the bytes submitted
    settings_hash  TEXT,                   -- sha256 of the job request they were submitted with
    state          TEXT NOT NULL,          -- waiting | submitting | processing | done | skipped | failed
    job_id         TEXT,
    token          TEXT,                   -- names the job of a submit cut short by a crash
    forced         INTEGER NOT NULL DEFAULT 0,  -- retried: process even if the content was seen
    error_code     TEXT,
    error_message  TEXT,
    duplicate_of   TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (folder_id, rel_path)
  );
  CREATE INDEX watch_files_state ON watch_files(folder_id, state);
  CREATE INDEX watch_files_content ON watch_files(folder_id, content_hash, settings_hash);
  CREATE INDEX watch_files_job ON watch_files(job_id);

  -- Contents processed per folder and settings: a file with the same bytes is skipped.
  CREATE TABLE watch_processed (
    folder_id      TEXT NOT NULL REFERENCES watch_folders(id) ON DELETE CASCADE,
    content_hash   TEXT NOT NULL,
    settings_hash  TEXT NOT NULL,
    rel_path       TEXT NOT NULL,
    at             INTEGER NOT NULL,
    PRIMARY KEY (folder_id, content_hash, settings_hash)
  );

  -- Every output path given out. A name planned for a file stays its own until the next
  -- version of that file replaces it; no other input ever gets it.
  CREATE TABLE watch_outputs (
    path           TEXT PRIMARY KEY,       -- absolute
    folder_id      TEXT NOT NULL REFERENCES watch_folders(id) ON DELETE CASCADE,
    file_id        INTEGER REFERENCES watch_files(id) ON DELETE SET NULL,  -- NULL: released
    job_id         TEXT NOT NULL,
    variation      TEXT NOT NULL,
    ext            TEXT NOT NULL,
    written        INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX watch_outputs_file ON watch_outputs(file_id);

  CREATE TABLE watch_events (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    folder_id      TEXT NOT NULL REFERENCES watch_folders(id) ON DELETE CASCADE,
    at             INTEGER NOT NULL,
    kind           TEXT NOT NULL,
    rel_path       TEXT,
    message        TEXT NOT NULL
  );
  CREATE INDEX watch_events_folder ON watch_events(folder_id, id);

  -- One process at a time watches (the app and clipdesk serve may share a data folder).
  CREATE TABLE watch_lease (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    owner          TEXT NOT NULL,
    pid            INTEGER NOT NULL,
    host           TEXT NOT NULL,
    heartbeat_at   INTEGER NOT NULL
  );
`
