#!/usr/bin/env node
// Kept tiny so start-up loads only what the chosen command needs: the bundle while it holds the
// code of the current build (a bare `tsc -b` since makes it stale), else the build's modules.
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { bundleIsCurrent } from '../dist/bundle-stamp.js';

// A project's regular expressions (redaction patterns, approval rules, a test's `matches`, a
// schema's `pattern`) run on what models and tools say. One such as `(a+)+$` backtracks for hours
// on a crafted text, and while it runs nothing else does: a run cannot be stopped, a server answers
// no one. V8's linear-time engine runs those it can (no backreference, no lookaround) in time
// linear in the text (core's boundedRegExp uses it; the others run under a timeout), and finishes
// any other expression of the process past V8's backtrack limit. Set before any is compiled; the
// flags hold for the whole process, workers included.
setFlagsFromString('--enable-experimental-regexp-engine');
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

// A shell left in a folder that was deleted (a branch switch, an rm -rf) has no current folder:
// every command would fail with Node's stack trace at its first use of it.
try {
  process.cwd();
} catch {
  process.stderr.write(
    'agentctl: the current folder no longer exists (deleted or moved): cd into one that does\n',
  );
  process.exit(2);
}

const bundled = bundleIsCurrent(fileURLToPath(new URL('../dist/bundle/', import.meta.url)));
const { main } = await import(bundled ? '../dist/bundle/main.js' : '../dist/main.js');

main(process.argv).then((code) => {
  process.exitCode = code;
  // The command is done: what a user's tool left behind (a timer, a socket, a read that never
  // returns) must not keep the process alive. Unref'd, so a clean exit is not delayed by it.
  setTimeout(() => process.exit(code), 1000).unref();
});
