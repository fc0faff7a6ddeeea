import type { Template } from './templates.js';

/** Where `init` writes the JSON Schema in a new project (refreshed by `npm run schema`). */
export const PROJECT_SCHEMA = '.vscode/agentctl.schema.json';

/** The YAML globs of a new project: what `agentctl.yaml` includes, its tests, and what the editor maps. */
const YAML_GLOBS = ['agentctl.yaml', 'agents/**/*.yaml', 'tests/**/*.yaml'];

/** The files every new project gets besides its template's: package, editor and CI set-up. */
export function projectFiles(
  name: string,
  versions: { cli: string; core: string },
  template: Template,
): Record<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const typescript = Object.keys(template.files).some((file) => file.endsWith('.ts'));
  const files: Record<string, string> = {
    'agentctl.yaml': `kind: project\nname: ${name}\ninclude: [agents/**/*.yaml]\n`,
    'package.json': json({
      name,
      private: true,
      type: 'module',
      scripts: {
        validate: 'agentctl validate',
        test: 'agentctl test',
        schema: `agentctl schema --write ${PROJECT_SCHEMA}`,
        ...(typescript ? { typecheck: 'tsc' } : {}),
      },
      // @agentctl/core gives module tools `defineTool` and the `Tool` type.
      dependencies: { '@agentctl/core': `^${versions.core}` },
      devDependencies: {
        '@agentctl/cli': `^${versions.cli}`,
        ...(typescript ? { typescript: '^6.0.3', '@types/node': '^20' } : {}),
        ...template.devDependencies,
      },
    }),
    '.gitignore': 'node_modules/\n.agentctl/\n.env\n',
    // Mapping the schema to globs (not a modeline) gives completion in every document of every file.
    '.vscode/settings.json': json({ 'yaml.schemas': { [`./${PROJECT_SCHEMA}`]: YAML_GLOBS } }),
    '.vscode/extensions.json': json({ recommendations: ['redhat.vscode-yaml'] }),
    '.github/workflows/agentctl.yml': WORKFLOW,
  };
  if (typescript) {
    files['tsconfig.json'] = json({
      compilerOptions: {
        target: 'ES2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        verbatimModuleSyntax: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['tools/**/*.ts'],
    });
  }
  return files;
}

const WORKFLOW = `name: agentctl
on: [push, pull_request]
jobs:
  validate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 20 }
      - run: npm install
      # On GitHub Actions, problems become annotations on the files (the github format is the default there).
      - run: npm run validate -- --strict
      # The tests under tests/ run offline; failures become annotations at the failing expectation.
      - run: npm test
`;
