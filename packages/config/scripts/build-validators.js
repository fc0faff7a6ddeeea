// Generates packages/config/dist/schema-validators.cjs (ajv standalone code for every schema) after
// `tsc -b`, so a start-up loads the validators instead of compiling the schemas. Run by the root
// build, prepare and test scripts; without it the loader compiles the schemas at run time.
import { writeValidatorCode } from '../dist/load/validator-code.js';

writeValidatorCode();
