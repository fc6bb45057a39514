/**
 * The single-watcher lease is gone: watched folders run in the process that runs the engine,
 * and one engine runs per data folder (`engine.lock`, engine/store/run-lock.ts).
 */
export default `
  DROP TABLE IF EXISTS watch_lease;
`
