export { recogniseRunner } from './recogniseRunner';
export { FAILED_LIST_CAP, REPORT_READ_CAP_BYTES } from './reportFiles';
export type { RecognisedRunner, RunnerCommand, TestRef, TestReport, TestRunnerName, TestSelection, TestSelectionKind } from './types';
