import type { Diagnostic } from '@agentctl/config';
import type { ProjectDiagnostic, ProjectStatus } from './project-view.js';

/**
 * The reload state of a served project, and who wants to hear when it changes: the command line
 * tells it of each reload and failed save; `GET /project/status` and `/project/events` read it.
 */
export class ProjectStatusBoard {
  #status: ProjectStatus;
  readonly #listeners = new Set<(status: ProjectStatus) => void>();

  constructor(watching: boolean, generation: number | null) {
    this.#status = { watching, generation, ok: generation !== null, updatedAt: Date.now(), diagnostics: [] };
  }

  /** The state now. */
  get current(): ProjectStatus {
    return this.#status;
  }

  /** A good build went live. */
  reloaded(generation: number, changes?: string): void {
    this.#publish({ ...this.#status, generation, ok: true, diagnostics: [], changes });
  }

  /** A save left the project broken; the generation before keeps serving. */
  failed(diagnostics: readonly Diagnostic[]): void {
    const { changes: _, ...rest } = this.#status;
    this.#publish({ ...rest, ok: false, diagnostics: diagnostics.map(projectDiagnostic) });
  }

  /** Calls `listener` with each new state; returns what stops it. */
  subscribe(listener: (status: ProjectStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #publish(status: ProjectStatus): void {
    // A status is never older than the one before it, even when the clock steps back.
    this.#status = { ...status, updatedAt: Math.max(Date.now(), this.#status.updatedAt) };
    for (const listener of this.#listeners) listener(this.#status);
  }
}

function projectDiagnostic(d: Diagnostic): ProjectDiagnostic {
  return {
    severity: d.severity,
    code: d.rule,
    message: d.message,
    file: d.file,
    line: d.line,
    column: d.col,
  };
}
