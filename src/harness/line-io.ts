/** Where a command-line program prints its lines (replaced by a capture in tests). */
export interface LineIo {
  out(line: string): void;
  err(line: string): void;
}

export const consoleLineIo: LineIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
