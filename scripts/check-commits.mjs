#!/usr/bin/env node
/**
 * Part of `npm run lint`: every commit after BASELINE has a subject of at most 72 characters and, when it has a
 * body, a blank line between subject and body (CONTRIBUTING.md). The commits up to BASELINE predate the rule and are
 * left as they are. In a shallow clone that lacks BASELINE, only HEAD is checked (and that is said).
 */
import { execFileSync } from 'node:child_process';

/** The last commit before the rule; everything after it is checked. */
const BASELINE = 'd93f57ad7810dd3cb3c327ad80805f389a736012';
const MAX_SUBJECT = 72;

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let range;
try {
  git('cat-file', '-e', `${BASELINE}^{commit}`);
  range = `${BASELINE}..HEAD`;
} catch {
  process.stdout.write(`check-commits: ${BASELINE.slice(0, 7)} is not in this clone; checking HEAD only\n`);
  range = '-1';
}

let log;
try {
  log = git('log', '--format=%H%x00%B%x01', range);
} catch (error) {
  process.stderr.write(`check-commits: git log failed: ${String(error.stderr ?? error.message).trim()}\n`);
  process.exit(2);
}
const problems = [];
let count = 0;
for (const entry of log.split('\x01')) {
  const trimmed = entry.replace(/^\n+/, '');
  if (trimmed === '') continue;
  const [hash, message] = trimmed.split('\x00');
  const lines = message.replace(/\n+$/, '').split('\n');
  const subject = lines[0];
  count++;
  if ([...subject].length > MAX_SUBJECT) {
    problems.push(
      `${hash.slice(0, 7)}: subject has ${[...subject].length} characters (at most ${MAX_SUBJECT}): ${JSON.stringify(subject.slice(0, 80))}`,
    );
  }
  if (lines.length > 1 && lines[1] !== '') problems.push(`${hash.slice(0, 7)}: no blank line between subject and body`);
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(
  `check-commits: ${count} commit(s) after the baseline, every subject within ${MAX_SUBJECT} characters\n`,
);
