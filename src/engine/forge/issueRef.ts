import { ForgeError } from './forge';

/** An issue named by the user: `repo` unset means the repository of the remote. */
export interface IssueRef {
  repo?: string;
  number: number;
}

const SHAPES: ReadonlyArray<RegExp> = [
  /^https?:\/\/[^/]+\/([^/\s]+\/[^/\s]+)\/issues\/(\d+)\/?(?:[?#].*)?$/,
  /^([^/\s#]+\/[^/\s#]+)#(\d+)$/,
  /^()#?(\d+)$/,
];

/** `OWNER/REPO#N`, the issue's URL, or `#N` (or `N`) for the remote's repository. */
export function parseIssueRef(text: string): IssueRef {
  const trimmed = text.trim();
  for (const shape of SHAPES) {
    const match = shape.exec(trimmed);
    if (match && Number(match[2]) > 0) return { ...(match[1] ? { repo: match[1].replace(/\.git$/, '') } : {}), number: Number(match[2]) };
  }
  throw new ForgeError(
    `Not an issue: "${trimmed}"`,
    'Name it as OWNER/REPO#N, as its URL (https://github.com/OWNER/REPO/issues/N), or as #N for the repository of the remote.',
    'unknown_repository',
  );
}
