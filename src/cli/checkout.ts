import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package folder the CLI runs from: a checkout, or an installed copy of a packed tarball (`npm pack`). */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Whether the CLI runs from a checkout (its TypeScript sources are in the package folder) rather than from an
 * installed copy of a packed tarball, which carries only bin/ and the prebuilt bundle (bin/cli-bundle.mjs
 * `isCheckout` asks the same question before any TypeScript is loaded).
 * @param root the package folder to look at
 */
export function runsFromCheckout(root: string = PACKAGE_ROOT): boolean {
  return statSync(join(root, 'src', 'cli', 'main.ts'), { throwIfNoEntry: false })?.isFile() === true;
}
