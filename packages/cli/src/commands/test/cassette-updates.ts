import { existsSync } from 'node:fs';
import {
  displayPath,
  type LoadedProject,
  type ProviderWrapper,
  readCassette,
  resolveProjectPath,
  scrubDeep,
  writeCassette,
} from '@agentctl/config';
import {
  type Cassette,
  type CassetteInteraction,
  emptyCassette,
  recordingProvider,
  requestDifferences,
} from '@agentctl/core';

/**
 * `agentctl test --update`: each model that has a `cassette:` and its key set is recorded, test
 * by test, and its cassette rewritten with the calls of every test in test order, so the next run
 * without a key replays them offline. A model without its key replays as usual and is named.
 * With only some tests run, a cassette keeps the calls of the others (they were not re-recorded).
 */
export class CassetteUpdates {
  readonly #project: LoadedProject;
  /** Test name -> cassette path -> the calls recorded. */
  readonly #recorded = new Map<string, Map<string, Cassette>>();
  /** Test name -> cassette path -> the model whose call failed there (no record of it is kept). */
  readonly #failed = new Map<string, Map<string, string>>();
  readonly #scrubbers = new Set<{ scrub(text: string): string }>();
  /** Models left as they were because no key is set, with their cassette (relative to the project). */
  readonly keyless = new Map<string, string>();
  /** Network models that ran live with no `cassette:` to record into. */
  readonly uncassetted = new Set<string>();

  constructor(project: LoadedProject) {
    this.#project = project;
  }

  /** The provider wrapper of one test's compile. */
  wrapperFor(test: string): ProviderWrapper {
    return (provider, model, secrets) => {
      const entry = this.#project.specs.model.get(model.name);
      if (model.provider === 'offline' || !entry) return provider;
      if (model.cassette === undefined) {
        if (model.apiKey) this.uncassetted.add(model.name);
        return provider;
      }
      const path = resolveProjectPath(this.#project.root, entry.absFile, model.cassette).absolute;
      if (!model.apiKey) {
        this.keyless.set(model.name, displayPath(this.#project.root, path));
        return provider;
      }
      this.#scrubbers.add(secrets);
      const byPath = this.#recorded.get(test) ?? new Map<string, Cassette>();
      this.#recorded.set(test, byPath);
      const cassette = byPath.get(path) ?? emptyCassette();
      byPath.set(path, cassette);
      const failed = this.#failed.get(test) ?? new Map<string, string>();
      this.#failed.set(test, failed);
      return recordingProvider(provider, cassette, { onFailure: () => failed.set(path, model.name) });
    };
  }

  /**
   * Writes every cassette recorded, merging tests in `order`: one line per file written, and one
   * per file left as it was, because its other calls could not be read or a test recording into
   * it ended in an error no `error:` expected (`stepErrors`, test -> code: its calls stop short).
   * `partial`: only some of the project's tests ran, so each cassette keeps its other calls.
   * `expectedErrors` (test -> code): a test whose step failed as its `error:` expects; when a
   * recorded model's call failed in it, a cassette that keeps answers only could not replay that.
   */
  async save(
    order: readonly string[],
    partial = false,
    stepErrors: ReadonlyMap<string, string> = new Map(),
    expectedErrors: ReadonlyMap<string, string> = new Map(),
  ): Promise<{ written: string[]; refused: string[] }> {
    const merged = new Map<string, Cassette>();
    const cutShort = new Map<string, string>();
    for (const test of order) {
      const expected = expectedErrors.get(test);
      for (const [path, model] of expected === undefined ? [] : (this.#failed.get(test) ?? [])) {
        if (cutShort.has(path)) continue;
        cutShort.set(
          path,
          `in test ${test}, model ${model}'s call failed (the step's ${expected}, as its \`error:\` expects), and a cassette records answers only: replayed offline, that step could not fail the same way`,
        );
        // Refused even with no call recorded: the next offline run would find no cassette at all.
        if (!merged.has(path)) merged.set(path, emptyCassette());
      }
      for (const [path, cassette] of this.#recorded.get(test) ?? []) {
        const code = stepErrors.get(test);
        if (code !== undefined && !cutShort.has(path))
          cutShort.set(path, `test ${test} failed with ${code}, so its recording is incomplete`);
        const into = merged.get(path) ?? emptyCassette();
        into.interactions.push(...cassette.interactions);
        merged.set(path, into);
      }
    }
    const lines: string[] = [];
    const refused: string[] = [];
    for (const [path, cassette] of merged) {
      const why = cutShort.get(path);
      if (why !== undefined) {
        // Its recording stops at the error: written, the next offline run would lack the rest.
        refused.push(
          `${displayPath(this.#project.root, path)} not updated: ${why}; the cassette is left as it was`,
        );
        continue;
      }
      if (cassette.interactions.length === 0) continue;
      // A secret interpolated into an instruction would otherwise reach the file inside a request.
      const scrubbed = scrubDeep(cassette, (text) =>
        [...this.#scrubbers].reduce((out, s) => s.scrub(out), text),
      );
      let kept: CassetteInteraction[] = [];
      try {
        if (partial) kept = await othersCalls(this.#project.root, path, scrubbed.interactions);
      } catch (error) {
        // Rewriting it would drop the calls of every test not run: the file stays for a person.
        refused.push(
          `${(error as Error).message}; not updated: fix it, or run \`agentctl test --update\` to record every test into it afresh`,
        );
        continue;
      }
      await writeCassette(path, { ...scrubbed, interactions: [...kept, ...scrubbed.interactions] });
      lines.push(
        `recorded ${cassette.interactions.length} model call(s) to ${displayPath(this.#project.root, path)}${
          kept.length > 0 ? ` (kept ${kept.length} call(s) of the tests not run)` : ''
        }`,
      );
    }
    return { written: lines, refused };
  }
}

// The calls of a cassette that the fresh ones do not replace: an old call goes only when a fresh
// one has the same request (one for one), since a cassette does not say which test made a call.
async function othersCalls(
  root: string,
  path: string,
  fresh: readonly CassetteInteraction[],
): Promise<CassetteInteraction[]> {
  if (!existsSync(path)) return []; // none yet: nothing to keep
  const old = await readCassette(path, displayPath(root, path));
  const unmatched = [...fresh];
  return old.interactions.filter((call) => {
    const at = unmatched.findIndex((f) => requestDifferences(call.request, f.request).length === 0);
    if (at < 0) return true;
    unmatched.splice(at, 1);
    return false;
  });
}
