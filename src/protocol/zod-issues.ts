/** Issues quoted in a violation; the rest are counted. */
export const MAX_ISSUES_SHOWN = 5;

/**
 * The first issues of a failed parse, one line: zod reports every bad element of an array,
 * and a reply whose content held a million bad blocks made a million issues (1.4 GB of heap
 * to join them).
 */
export function zodIssues(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  const shown = error.issues
    .slice(0, MAX_ISSUES_SHOWN)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  const rest = error.issues.length - shown.length;
  return rest > 0 ? `${shown.join('; ')} (and ${rest} more issues)` : shown.join('; ');
}
