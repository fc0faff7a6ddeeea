export { CliError, EXIT } from './cli-error.js';
export { type Io, processIo } from './io.js';
export { main } from './main.js';
export { createProgram, type Invocation, VERSION } from './program.js';
