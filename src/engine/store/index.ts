export { CorruptLogError, EventLog, LogWriteError, type ReadOptions, type ReadResult } from './eventLog';
export { describeLockOwner, liveLockOwner, LockHeldError, WorkspaceLock, type LockOwner } from './lock';
export { derivedFilesUpToDate, renderDecisionsMarkdown, renderRunJson, writeDerivedFiles, type RunStatusFile } from './derivedFiles';
export { runPaths, taskloomPaths, isValidRunId, assertValidRunId, type RunPaths, type TaskloomPaths } from './paths';
export {
  RunNotFoundError,
  RunStore,
  SNAPSHOT_MIN_BYTES,
  SNAPSHOT_LOG_GROWTH,
  DERIVED_FILES_INTERVAL_MS,
  DERIVED_FILES_MAX_TIME_SHARE,
  type RunCreatedBody,
  type RunStoreOptions,
} from './runStore';
export { StateDb, type RunIndexEntry, type RunSnapshot, type SnapshotInfo, type StateData, type StoredRun } from './stateDb';
