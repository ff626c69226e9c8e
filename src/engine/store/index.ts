export { CorruptLogError, EventLog, type ReadOptions, type ReadResult } from './eventLog';
export { LockHeldError, WorkspaceLock } from './lock';
export { renderDecisionsMarkdown, renderRunJson, writeDerivedFiles, type RunStatusFile } from './derivedFiles';
export { runPaths, taskloomPaths, isValidRunId, assertValidRunId, type RunPaths, type TaskloomPaths } from './paths';
export {
  RunNotFoundError,
  RunStore,
  SNAPSHOT_EVERY,
  DERIVED_FILES_INTERVAL_MS,
  type RunCreatedBody,
  type RunStoreOptions,
} from './runStore';
export { StateDb, type RunIndexEntry, type RunSnapshot, type StateData, type StoredRun } from './stateDb';
