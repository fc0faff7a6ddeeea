#!/usr/bin/env node
// Kept tiny so start-up loads only what the chosen command needs.
import { main } from '../dist/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
