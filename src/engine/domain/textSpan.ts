/** Where in a file a problem is: 1-based lines and columns, the end column exclusive. */
export interface TextSpan {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}
