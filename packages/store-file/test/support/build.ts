import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** Builds store-file's dist (and core's) so child processes can import the real package. */
export function buildStoreFile(): void {
  const tsc = (...args: string[]) =>
    execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, ...args], {
      cwd: root,
      stdio: 'pipe',
    });
  try {
    tsc('-b', 'packages/store-file');
  } catch {
    // Another package in the middle of a change can break the build of the references; compile this
    // package alone against core's last built declarations instead.
    tsc('-p', 'packages/store-file/tsconfig.json');
  }
}

/** Absolute path of a fixture script. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
}
