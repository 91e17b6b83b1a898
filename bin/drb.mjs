#!/usr/bin/env node
// The `drb` binary: registers tsx so the TypeScript CLI runs straight from a clean clone, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
