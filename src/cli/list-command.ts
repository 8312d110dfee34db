import type { Command } from 'commander';
import { catalogueOf, formatCatalogue, PLAIN_WIDTH } from '../reporters/catalogue.js';
import { SUITES } from '../suites/registry.js';
import type { CliContext } from './context.js';
import { unknownSuiteError } from './unknown-suite.js';

/** `wirecheck list [suite] [--json]`. */
export function addListCommand(program: Command, ctx: CliContext, finish: (exitCode: number) => void): void {
  program
    .command('list')
    .description('list the checks: id, level, tier, spec clause, description, and the rule with its basis')
    .argument('[suite]', 'only this suite')
    .option('--json', 'print a JSON array instead of text')
    .action((suiteName: string | undefined, opts: { json?: boolean }) => {
      const entries = suiteName === undefined ? SUITES : SUITES.filter((e) => e.suite.name === suiteName);
      if (suiteName !== undefined && entries.length === 0) {
        throw unknownSuiteError(suiteName);
      }
      const rows = catalogueOf(entries);
      // A terminal's own width; anything else (a pipe, a file, a pseudo-terminal of no size) a fixed one.
      const width =
        ctx.stdout.isTTY === true && (ctx.stdout.columns ?? 0) > 0
          ? (ctx.stdout.columns ?? PLAIN_WIDTH)
          : PLAIN_WIDTH;
      ctx.stdout.write(
        opts.json === true ? `${JSON.stringify(rows, null, 2)}\n` : formatCatalogue(rows, width),
      );
      finish(0);
    });
}
