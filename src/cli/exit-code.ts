import type { Command } from 'commander';

/** Where a command leaves its exit code for `main` to return (commander has no slot of its own for it). */
type WithExitCode = Command & { drbExitCode?: number };

/**
 * Lets a command report a non-zero exit code without throwing (for example "checked, and found problems").
 * A module of its own so commands need not import `main.ts`, which imports them.
 * @param command the command whose action is running (`this` or the action's last argument)
 * @param code the process exit code
 */
export function setExitCode(command: Command, code: number): void {
  (command as WithExitCode).drbExitCode = code;
}

/**
 * The exit code a command set with `setExitCode`, if any.
 * @param command the command that ran
 */
export function exitCodeOf(command: Command): number | undefined {
  return (command as WithExitCode).drbExitCode;
}
