/**
 * An expected failure of a CLI command: bad input, a refused comparison, a failed check.
 * `main` prints it as one `error: ...` line and exits with `exitCode`; anything else is a bug and prints its stack.
 */
export class CliError extends Error {
  override name = 'CliError';
  /** @param exitCode the process exit code to use (2 for bad input, 1 for a check that found problems). */
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
