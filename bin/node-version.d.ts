// Types of bin/node-version.js (plain JavaScript, so that any Node can run the check).
export function requiredNode(): [number, number];
export function nodeVersionProblem(version?: string, execPath?: string): string | undefined;
export function exitUnlessSupportedNode(): void;
