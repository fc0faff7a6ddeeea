import type { Runtime } from '../compile/compile-project.js';
import type { AgentChanges } from './agent-changes.js';

/**
 * One compiled version of a project. Runs hold a lease on the generation they started with; a
 * generation replaced by a newer one is disposed when its last lease is released, however long
 * that takes, so a run never loses its tools or MCP clients halfway.
 */
export class Generation {
  #leases = 0;
  #retired = false;
  #disposing?: Promise<void>;

  constructor(
    /** 1 for the first good build, then one more per good reload. */
    readonly id: number,
    readonly runtime: Runtime,
    /** What this generation changed compared with the one before it. */
    readonly changes: AgentChanges,
    /** Files whose change led to this generation (empty for the first). */
    readonly files: readonly string[],
    readonly onDisposed?: (generation: Generation) => void,
  ) {}

  /** Runs in flight on this generation. */
  get leases(): number {
    return this.#leases;
  }

  /** True once replaced by a newer generation. */
  get retired(): boolean {
    return this.#retired;
  }

  /** True once its resources were released. */
  get disposed(): boolean {
    return this.#disposing !== undefined;
  }

  /** Keeps the generation alive until the returned function is called (once; later calls do nothing). */
  acquire(): () => void {
    if (this.#disposing) throw new Error(`generation ${this.id} was already disposed`);
    this.#leases++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#leases--;
      this.#maybeDispose();
    };
  }

  /** Marks the generation replaced; it is disposed now or when its last run ends. */
  retire(): Promise<void> | undefined {
    this.#retired = true;
    return this.#maybeDispose();
  }

  /** Disposes at once, whatever is running (closing a watcher). */
  dispose(): Promise<void> {
    this.#retired = true;
    this.#disposing ??= this.#release();
    return this.#disposing;
  }

  #maybeDispose(): Promise<void> | undefined {
    if (!this.#retired || this.#leases > 0) return this.#disposing;
    this.#disposing ??= this.#release();
    return this.#disposing;
  }

  async #release(): Promise<void> {
    try {
      await this.runtime.dispose();
    } finally {
      this.onDisposed?.(this);
    }
  }
}
