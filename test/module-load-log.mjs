// Plain JavaScript on purpose: it runs before any TypeScript loader exists.
/**
 * Logs every module Node loads, one URL a line, into the file named by DRB_MODULE_LOG: `node --import
 * ./test/module-load-log.mjs bin/drb.mjs ...` shows which modules a real `drb` run loads (the bundle's chunks, or the
 * sources through tsx, and every package). Loaded with --import it registers itself as a module-customization hook;
 * Node then loads it again on its hooks thread, where `load` does the logging.
 */
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

let logPath;

if (isMainThread && process.env.DRB_MODULE_LOG)
  register(import.meta.url, { data: { logPath: process.env.DRB_MODULE_LOG } });

/** Receives the log file's path from the main thread. */
export function initialize(data) {
  logPath = data.logPath;
}

/** Notes the module's URL, then loads it as Node would. */
export async function load(url, context, nextLoad) {
  appendFileSync(logPath, `${url}\n`);
  return nextLoad(url, context);
}
