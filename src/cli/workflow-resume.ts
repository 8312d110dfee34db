// Apart from workflow-commands.ts so that context.ts, which every per-case target command
// loads, loads no more than this.

/**
 * Resume lines of guarded output not yet written (workflow-commands.ts): a process that dies
 * by a signal (endBySignal) runs no 'exit' handler, so it writes them itself.
 */
export const pendingResumes = new Set<() => void>();

/** Writes the resume line of every guarded output still open (before the process dies by a signal). */
export function resumeWorkflowCommandsNow(): void {
  for (const resume of [...pendingResumes]) resume();
}
