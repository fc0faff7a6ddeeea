import type { AnyTool } from '@agentctl/core';

// A symbol property, not a set of tools: every later copy of a tool (`{ ...tool, needsApproval }`)
// keeps it.
const PROJECT_CODE = Symbol('agentctl.projectCode');

/**
 * Marks a tool whose `execute` is the project's own code (a module tool), run on the main thread:
 * the only tools whose calls can hold it without yielding, and so the only ones the run watchdog
 * watches (agentctl's tools wait on files, processes and the network). Marks the object given: pass
 * a copy the compiler made, never a module's export.
 */
export function markProjectCode<T extends AnyTool>(tool: T): T {
  (tool as T & { [PROJECT_CODE]?: true })[PROJECT_CODE] = true;
  return tool;
}

/** Whether {@link markProjectCode} marked this tool (or the tool it was copied from). */
export function runsProjectCode(tool: AnyTool | undefined): boolean {
  return tool !== undefined && (tool as AnyTool & { [PROJECT_CODE]?: true })[PROJECT_CODE] === true;
}
