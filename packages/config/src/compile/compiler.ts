import type { Agent, AnyTool, MemoryProvider, ModelProvider } from '@agentctl/core';
import type { DefinitionByKind, ProjectDefinition } from '../definitions.js';
import { type Diagnostic, diagnostic, type SourceRange } from '../diagnostic.js';
import { type Env, interpolate, interpolateDeep, MissingEnvError } from '../env/interpolate.js';
import { isSecretPath, Secrets } from '../env/secrets.js';
import type { DataPath } from '../load/node-range.js';
import type { ProjectSpecs, SpecEntry } from '../load/project-specs.js';
import { errorField } from '../normalise/error-field.js';
import { normalise } from '../normalise/normalise.js';
import { normaliseProject } from '../normalise/normalise-project.js';
import { displayPath, readProjectFile, resolveProjectPath } from '../paths.js';
import type { FactoryContext, Registry } from '../registry.js';
import type { Kind } from '../schemas.js';
import type { SpecByKind } from '../spec-types.js';
import type { CarriedMemories } from './compile-project.js';
import { importModule } from './import-module.js';
import type { ProviderWrapper } from './resolve-model.js';
import { failureText, runGuarded } from './stray-failures.js';

/** State shared while one project compiles: caches, things to dispose, diagnostics. */
export class Compiler {
  readonly diagnostics: Diagnostic[] = [];
  readonly secrets = new Secrets();
  readonly providers = new Map<string, Promise<ModelProvider | undefined>>();
  readonly tools = new Map<string, Promise<AnyTool | undefined>>();
  readonly toolsets = new Map<string, Promise<AnyTool[] | undefined>>();
  readonly memories = new Map<string, Promise<MemoryProvider | undefined>>();
  /** Agents built so far, by name: each agent is built once, whoever refers to it. */
  readonly agents = new Map<string, Promise<Agent | undefined>>();
  readonly disposers: Array<() => Promise<void>> = [];
  /** A model every LLM agent uses instead of its own (`agentctl run --model`). */
  modelOverride?: string;
  /** Models of some agents by agent name, over `modelOverride` (a test's `model:` per agent). */
  agentModels?: ReadonlyMap<string, string>;
  /** Wraps every provider made (`agentctl run --record`). */
  wrapProvider?: ProviderWrapper;
  /** In-process memories kept from the previous compile of a watched project. */
  carriedMemories?: CarriedMemories;
  /** Each model made is asked for what it lacks before a request (`CompileOptions.requireKeys`). */
  requireKeys: boolean | 'warn' = false;
  /** What a missing key's message offers instead (`CompileOptions.keyHint`). */
  keyHint = 'try the agent offline with no key: `--model offline/echo`';
  readonly #interpolated = new WeakMap<object, unknown>();
  readonly #definitions = new WeakMap<object, unknown>();
  #project?: ProjectDefinition;

  constructor(
    readonly root: string,
    readonly specs: ProjectSpecs,
    readonly registry: Registry,
    readonly env: Env,
  ) {}

  /** Reports a problem; the message is scrubbed of secrets first. */
  error(
    entry: SpecEntry,
    path: DataPath,
    rule: string,
    message: string,
    options: { key?: boolean } = {},
  ): void {
    this.diagnostics.push(
      diagnostic(entry.file, entry.locate(path, options), rule, this.secrets.scrub(message)),
    );
  }

  /** Reports a problem at an explicit place. */
  errorAt(file: string, range: SourceRange, rule: string, message: string): void {
    this.diagnostics.push(diagnostic(file, range, rule, this.secrets.scrub(message)));
  }

  /** The entry's spec with `${VAR}` resolved, or undefined when a required variable is unset. */
  resolved<T>(entry: SpecEntry<T>): T | undefined {
    const cached = this.#interpolated.get(entry as object);
    if (cached !== undefined) return (cached === false ? undefined : cached) as T | undefined;
    let ok = true;
    const value = interpolateDeep(entry.spec, (text, path) => {
      try {
        const out = interpolate(text, this.env, this.#secretsAt(entry.spec, path));
        if (path.includes('api_key')) this.secrets.add(out);
        return out;
      } catch (error) {
        if (!(error instanceof MissingEnvError)) throw error;
        ok = false;
        this.error(entry, path, 'env-required', error.message);
        return text;
      }
    });
    this.#interpolated.set(entry as object, ok ? (value as object) : false);
    return ok ? value : undefined;
  }

  // Where a string sits in a spec decides which of its `${VAR}` values are kept as secrets: all of
  // an API key's; in a URL, header, environment or command line, those a name around them says
  // are credentials (the variable, the header or environment name, the flag before it in a
  // command line, the word before it in the string) or that read as one; elsewhere none.
  #secretsAt(
    spec: unknown,
    path: ReadonlyArray<string | number>,
  ): ((value: string, name: string, before: string) => void) | undefined {
    if (!isSecretPath(path)) return undefined;
    if (path.includes('api_key')) return (value) => this.secrets.add(value);
    const key = path.findLast((part): part is string => typeof part === 'string');
    const last = path.at(-1);
    const previous =
      typeof last === 'number' && last > 0 ? valueAt(spec, [...path.slice(0, -1), last - 1]) : undefined;
    return (value, name, before) =>
      this.secrets.offer(value, [
        name,
        key,
        typeof previous === 'string' ? previous : undefined,
        before
          .trimEnd()
          .split(/[\s/?&#,;]+/)
          .at(-1),
      ]);
  }

  /**
   * Remembers as secret what `${VAR}` puts into the secret paths of an entry this compile does not
   * build (another agent's model key): a tool of the agent that runs may still print it, from the
   * project's `.env` or the environment. An unset variable holds no secret, and is not reported.
   */
  rememberSecrets(entry: SpecEntry): void {
    interpolateDeep(entry.spec, (text, path) => {
      if (!isSecretPath(path)) return text;
      try {
        const out = interpolate(text, this.env, this.#secretsAt(entry.spec, path));
        if (path.includes('api_key')) this.secrets.add(out);
      } catch (error) {
        if (!(error instanceof MissingEnvError)) throw error;
      }
      return text;
    });
  }

  /** The project's definition (`agentctl.yaml`, or none), `${VAR}` resolved. */
  get project(): ProjectDefinition {
    const entry = this.specs.project;
    this.#project ??= normaliseProject(entry && this.resolved(entry));
    return this.#project;
  }

  /**
   * The entry's definition: `${VAR}` resolved, then normalised (camelCase, defaults, ms). Undefined,
   * with a diagnostic, when a variable is unset or a value that came from one is not valid.
   */
  definition<K extends Kind>(kind: K, entry: SpecEntry<SpecByKind[K]>): DefinitionByKind[K] | undefined {
    if (this.#definitions.has(entry)) return this.#definitions.get(entry) as DefinitionByKind[K] | undefined;
    const spec = this.resolved(entry);
    let made: DefinitionByKind[K] | undefined;
    if (spec) {
      try {
        made = normalise(kind, spec, this.registry);
      } catch (error) {
        // Only a `${VAR}` the schema could not see gets here (a duration such as `timeout: ${T}`).
        const message = (error as Error).message;
        this.error(entry, errorField(entry.spec, message), 'env-values', message);
      }
    }
    this.#definitions.set(entry, made);
    return made;
  }

  /** What a factory receives for a spec written in `entry`'s file. */
  factoryContext(entry: SpecEntry): FactoryContext {
    return {
      root: this.root,
      file: entry.absFile,
      env: this.env,
      secrets: this.secrets,
      resolvePath: (written) => {
        const resolved = resolveProjectPath(this.root, entry.absFile, written);
        if (resolved.escapes) throw new Error(`path \`${written}\` is outside the project folder`);
        return resolved.absolute;
      },
      readText: (written, what) => readProjectFile(this.root, entry.absFile, written, what),
      importModule: (absolutePath) => this.#importModule(absolutePath),
    };
  }

  // A module's top-level code that fails where nothing awaits it (a timer it sets, a promise it
  // leaves rejected) fails its import, or later is a warning, rather than ending the process.
  #importModule(absolutePath: string): Promise<Record<string, unknown>> {
    const owner = `the module ${displayPath(this.root, absolutePath)}`;
    return runGuarded(
      {
        owner,
        late: (error) =>
          process.stderr.write(
            this.secrets.scrub(
              `agentctl: warning: code of ${owner} failed after it was imported (ignored): ${failureText(error)}\n`,
            ),
          ),
      },
      async () => {
        const mod = await importModule(absolutePath);
        // Node tells of a promise the module's top-level code left rejected only once the turn of
        // the event loop that evaluated it ends: waited for here, it fails the import.
        await new Promise((resolve) => setImmediate(resolve));
        return mod;
      },
    );
  }

  /** Runs a factory, turning a throw into a diagnostic at `path` of `entry`. */
  async attempt<T>(
    entry: SpecEntry,
    path: DataPath,
    rule: string,
    what: () => T | Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await what();
    } catch (error) {
      this.error(entry, path, rule, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }
}

// The value at `path` in a JSON-like value, or undefined.
function valueAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let at = value;
  for (const part of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[part];
  }
  return at;
}
