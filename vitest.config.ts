import { defineConfig } from 'vitest/config';

const packages = [
  'core',
  'config',
  'provider-openai',
  'provider-anthropic',
  'provider-google',
  'store-file',
  'store-postgres',
  'tracing',
  'mcp',
  'server',
  'queue',
  'cli',
  'ui',
];

// Tests import workspace packages from their TypeScript source (the `agentctl-source` export
// condition), so a change is tested without a build; end-to-end tests run the built CLI.
const resolve = { conditions: ['agentctl-source', 'node', 'import', 'module', 'default'] };
// Vitest hands these conditions to Node for the packages it does not transform, and `import` there
// makes a CommonJS package's require() of a dual package (pg -> pg-pool) load the ESM build.
const cjsSafe = { conditions: ['agentctl-source', 'node', 'default'] };
// OpenTelemetry's `module` builds are not valid Node ESM (extensionless imports): tracing's tests load
// what Node loads, as agentctl does.
const cjsPackages = new Set(['store-postgres', 'tracing']);

export default defineConfig({
  test: {
    // CI asks for a JSON report beside the console output to print its "N passed, N failed" line.
    reporters: process.env.AGENTCTL_TEST_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.AGENTCTL_TEST_REPORT ? { json: process.env.AGENTCTL_TEST_REPORT } : undefined,
    projects: [
      ...packages.map((name) => {
        const conditions = cjsPackages.has(name) ? cjsSafe : resolve;
        return {
          resolve: conditions,
          ssr: { resolve: { conditions: conditions.conditions, externalConditions: ['agentctl-source'] } },
          test: { name, root: `packages/${name}`, include: ['test/**/*.test.ts'], testTimeout: 20_000 },
        };
      }),
      {
        resolve: cjsSafe,
        ssr: { resolve: { conditions: cjsSafe.conditions, externalConditions: ['agentctl-source'] } },
        test: { name: 'e2e', root: '.', include: ['test/**/*.test.ts'], testTimeout: 60_000 },
      },
    ],
  },
});
