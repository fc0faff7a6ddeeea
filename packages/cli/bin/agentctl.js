#!/usr/bin/env node
// Kept tiny so start-up loads only what the chosen command needs: the bundle while it holds the
// code of the current build (a bare `tsc -b` since makes it stale), else the build's modules.
import { fileURLToPath } from 'node:url';
import { bundleIsCurrent } from '../dist/bundle-stamp.js';

const bundled = bundleIsCurrent(fileURLToPath(new URL('../dist/bundle/', import.meta.url)));
const { main } = await import(bundled ? '../dist/bundle/main.js' : '../dist/main.js');

main(process.argv).then((code) => {
  process.exitCode = code;
  // The command is done: what a user's tool left behind (a timer, a socket, a read that never
  // returns) must not keep the process alive. Unref'd, so a clean exit is not delayed by it.
  setTimeout(() => process.exit(code), 1000).unref();
});
