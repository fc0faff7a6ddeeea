import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

/**
 * A draft 2020-12 Ajv with the formats plugin. Imported on demand, and importing the CommonJS ajv
 * statically: a bundler gives a dynamic import of CommonJS a `default` export only.
 */
export function createAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020(options);
  (formats as unknown as (ajv: Ajv2020) => void)(ajv);
  return ajv;
}
