import { resolve } from 'node:path';
import {
  type LoadedProject,
  loadProject,
  type ProviderWrapper,
  type Runtime,
  scrubDeep,
  writeCassette,
} from '@agentctl/config';
import { type Cassette, emptyCassette, recordingProvider } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import type { Io } from '../../io.js';
import { unwritableTarget } from '../../write-target.js';

type Scrubber = { scrub(text: string): string };

/**
 * `agentctl run --record <cassette>`: wraps every model provider of the run so each call is
 * kept (the normalised request and the full response, never keys or headers), and writes the
 * cassette as YAML when the runtime is disposed, after the run.
 *
 * @example
 * const recorder = new Recorder('cassettes/run.yaml', io, project);
 * const { runtime } = await compileProject(project, { wrapProvider: recorder.wrap });
 * const recorded = recorder.attach(runtime); // its dispose() writes the cassette
 */
export class Recorder {
  /** The calls recorded so far. */
  readonly cassette: Cassette = emptyCassette();
  /** Absolute path of the cassette file. */
  readonly path: string;
  readonly #io: Io;
  readonly #project: LoadedProject;
  readonly #scrubbers = new Set<Scrubber>();

  constructor(path: string, io: Io, project: LoadedProject) {
    this.path = resolve(io.cwd, path);
    this.#io = io;
    this.#project = project;
    // Known before the run, not after it: a cassette that cannot be written would lose every call.
    const blocked = unwritableTarget(this.path);
    if (blocked) throw new CliError(`--record ${path}: ${blocked}`, EXIT.usage);
  }

  /** The `wrapProvider` hook to give to `compileProject`. */
  readonly wrap: ProviderWrapper = (provider, _model, secrets) => {
    this.#scrubbers.add(secrets);
    return recordingProvider(provider, this.cassette);
  };

  /** The runtime, with a `dispose()` that writes the cassette first. */
  attach(runtime: Runtime): Runtime {
    const dispose = runtime.dispose.bind(runtime);
    let saved = false;
    return {
      ...runtime,
      dispose: async () => {
        try {
          if (!saved) {
            saved = true;
            await this.save();
          }
        } finally {
          await dispose();
        }
      },
    };
  }

  /** Writes the cassette; a run that made no model call leaves an existing file alone. */
  async save(): Promise<void> {
    const count = this.cassette.interactions.length;
    if (count === 0) {
      this.#io.stderr(`no model call was made; ${this.path} was not written\n`);
      return;
    }
    // A secret interpolated into an instruction would otherwise reach the file inside a request.
    const scrubbed = scrubDeep(this.cassette, (text) =>
      [...this.#scrubbers].reduce((out, s) => s.scrub(out), text),
    );
    await writeCassette(this.path, scrubbed).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(
        `cannot write the cassette ${this.path}: ${error.code ?? error.message}`,
        EXIT.failed,
      );
    });
    this.#io.stderr(`recorded ${count} model call(s) to ${this.path}\n`);
    // A cassette among the project's YAML would be loaded as a document without a `kind` next time.
    const root = this.#project.root;
    const again = await loadProject({ cwd: root, project: root, env: this.#io.env });
    if (again.files.includes(this.path)) {
      this.#io.stderr(
        `note: the project's include globs match ${this.path}; add its folder to \`exclude\` in agentctl.yaml\n`,
      );
    }
  }
}
