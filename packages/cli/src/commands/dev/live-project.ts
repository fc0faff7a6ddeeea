import {
  type Diagnostic,
  formatAgentChanges,
  formatDiagnostic,
  type Generation,
  type ProjectWatch,
  watchProject,
} from '@agentctl/config';
import type { Agent, SessionStore } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { defaultRegistry } from '../../default-registry.js';
import { type Io, styles } from '../../io.js';
import { checkModelOption, emptyFolder } from '../../project.js';
import { agentSessionStore, projectSessionStore, sessionStoreFor } from '../../session-store.js';
import { traceSecrets } from '../../tracing.js';
import { unknownAgent } from '../../unknown-agent.js';
import { untilValid } from '../../until-valid.js';
import { watchErrorReporter } from '../../watch-error-reporter.js';

/** A project kept live by `dev` and `run --watch`. */
export interface LiveProject {
  watch: ProjectWatch;
  /**
   * The agent of the live generation with a lease on it and the store its run keeps the session in;
   * call `release` when its run ends (the generation's tools, MCP clients and store connections stay
   * open until then, even after a reload).
   */
  lease(): Promise<{ agent: Agent; generation: Generation; store: SessionStore; release(): void }>;
}

/** How {@link openLiveProject} treats the first build and each new generation. */
export interface LiveProjectOptions {
  /** Called with each generation once it is live. */
  onGeneration?: (generation: Generation) => void;
  /**
   * A model without its API key: a warning of each build (the default), or with `true` (`run
   * --watch`) a failed build, before any run writes a session.
   */
  requireKeys?: boolean | 'warn';
  /**
   * `dev`: a project broken at start is reported as `validate` reports it and watched until a save
   * makes it good, as after a broken save; without, its errors end the command (exit 1).
   */
  waitForFix?: boolean;
}

/**
 * Watches the project the command line points at, compiling only `agentName` (and what it uses),
 * and reports on stderr: each reload with what changed in one line, each broken save with its
 * diagnostics (once per change), each retired generation when its last run ends.
 */
export async function openLiveProject(
  options: Record<string, unknown>,
  io: Io,
  agentName: string,
  { onGeneration, requireKeys = 'warn', waitForFix = false }: LiveProjectOptions = {},
): Promise<LiveProject> {
  const s = styles(io.isTTY);
  // The flag is the user's, not a YAML line: waiting for a save would never fix it.
  await checkModelOption(options, io);
  const started = new Map<Generation, number>();
  let firstFailure: Diagnostic[] | undefined;
  // Unset while the first build runs: its failure is said once the watch is known to have started.
  let watchRef: ProjectWatch | undefined;
  let firstWarnings: readonly Diagnostic[] = [];
  let arrived: (generation: Generation) => void = () => undefined;
  const firstGood = new Promise<Generation>((resolve) => {
    arrived = resolve;
  });
  const watch = await watchProject(
    io.cwd,
    (generation, warnings) => {
      started.set(generation, Date.now());
      traceSecrets(generation.runtime);
      // The first build's warnings wait until the folder is known to hold a project.
      if (watchRef) for (const d of warnings) io.stderr(`${formatDiagnostic(d)}\n`);
      else firstWarnings = warnings;
      arrived(generation);
      // Generation 1 is announced too when a save brought it (the project was broken at start).
      if (watchRef) {
        const files = generation.files.length;
        io.stderr(
          s.green(
            `[reload] generation ${generation.id} live (${files} file${files === 1 ? '' : 's'} changed): ${formatAgentChanges(generation.changes)}\n`,
          ),
        );
      }
      onGeneration?.(generation);
    },
    (diagnostics) => {
      if (!watchRef) {
        firstFailure = diagnostics;
        return;
      }
      const serving = watchRef.current;
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      // One write, so the report is never split by other output.
      io.stderr(
        s.red(
          `[reload] failed with ${errors} error(s); ${serving ? `still serving generation ${serving.id}` : 'nothing to serve yet'}:\n`,
        ) + diagnostics.map((d) => `  ${formatDiagnostic(d)}\n`).join(''),
      );
    },
    {
      project: options.project as string | undefined,
      registry: defaultRegistry(),
      env: io.env,
      model: options.model as string | undefined,
      agents: [agentName],
      requireKeys,
      onWatchError: watchErrorReporter(io),
    },
  );
  watchRef = watch;
  if (!watch.current) {
    for (const d of firstFailure ?? []) io.stderr(`${formatDiagnostic(d)}\n`);
    const errors = (firstFailure ?? []).filter((d) => d.severity === 'error').length;
    if (!waitForFix) {
      await watch.close();
      throw new CliError(`${errors} error(s) in the project; nothing was run`, EXIT.failed);
    }
    io.stderr(
      s.red(`agentctl: ${errors} error(s) in the project; `) +
        `fix them and save: ${agentName} starts as soon as the project is valid (Ctrl-C stops)\n`,
    );
  }
  let first: Generation;
  try {
    first = await untilValid(firstGood);
  } catch (error) {
    await watch.close();
    throw error;
  }
  const agent = first.runtime.agents.get(agentName);
  // A folder with no project at all is said as `run` says it, not as a missing agent.
  const empty = emptyFolder(watch.root, first.runtime.specs.agent.size, options.project !== undefined);
  if (!empty) for (const d of firstWarnings) io.stderr(`${formatDiagnostic(d)}\n`);
  if (!agent) {
    await watch.close();
    throw empty ?? unknownAgent(agentName, first.runtime.specs.agent.keys());
  }
  // The project's file store, when an agent keeps no sessions of its own (made at most once).
  let projectStore = agentSessionStore(agent) ? undefined : await sessionStoreFor(agent, first.runtime);
  // An agent's own store is its generation's: one holding connections (postgres) is closed with it,
  // so a run uses the store of the generation it runs on (the first one's, kept for good, failed
  // every run after a save). An in-process one is handed from generation to generation by the watch.
  const storeOf = async (leased: Agent): Promise<SessionStore> => {
    const own = agentSessionStore(leased);
    if (own) return own;
    projectStore ??= await projectSessionStore(watch.root);
    return projectStore;
  };
  io.stderr(s.dim(`watching ${watch.root} for changes (generation ${first.id})\n`));
  return {
    watch,
    async lease() {
      const held = watchRef?.acquire();
      if (!held) throw new CliError('the project has no working version', EXIT.failed);
      const leased = held.generation.runtime.agents.get(agentName);
      if (!leased) {
        held.release();
        throw new CliError(`agent "${agentName}" is no longer in the project`, EXIT.failed);
      }
      const generation = held.generation;
      let store: SessionStore;
      try {
        store = await storeOf(leased);
      } catch (error) {
        held.release();
        throw error;
      }
      return {
        agent: leased,
        generation,
        store,
        release() {
          held.release();
          if (generation.disposed && generation !== watchRef?.current)
            io.stderr(s.dim(`[reload] generation ${generation.id} released after its last run\n`));
        },
      };
    },
  };
}
