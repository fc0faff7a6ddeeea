import { agentCycle } from './agent-cycle.js';
import { approvalRules } from './approval-rules.js';
import { commandArgv } from './command-argv.js';
import { duplicateTool } from './duplicate-tool.js';
import { envEmpty } from './env-empty.js';
import { envRequired } from './env-required.js';
import { envValues } from './env-values.js';
import { filePath } from './file-path.js';
import { instructionTemplate } from './instruction-template.js';
import { memoryBackend } from './memory-backend.js';
import { modelDeprecated } from './model-deprecated.js';
import { modelFallback } from './model-fallback.js';
import { modulePath } from './module-path.js';
import { outputSchemaValid } from './output-schema-valid.js';
import { pluginOptions } from './plugin-options.js';
import { reservedName } from './reserved-name.js';
import type { Rule } from './rule.js';
import { scheduleTiming } from './schedule-timing.js';
import { singleParent } from './single-parent.js';
import { testDocuments } from './test-documents.js';
import { uniqueNames } from './unique-names.js';
import { unknownBuiltin } from './unknown-builtin.js';
import { unknownProvider } from './unknown-provider.js';
import { unresolvedReference } from './unresolved-reference.js';
import { unsetStateKey } from './unset-state-key.js';
import { unsupportedSetting } from './unsupported-setting.js';
import { workflowConstraints } from './workflow-constraints.js';

/** Every semantic rule, in the order their diagnostics are most useful. */
export const RULES: ReadonlyArray<{ id: string; check: Rule }> = [
  { id: 'unique-names', check: uniqueNames },
  { id: 'reserved-name', check: reservedName },
  { id: 'unresolved-reference', check: unresolvedReference },
  { id: 'unknown-provider', check: unknownProvider },
  { id: 'model-fallback', check: modelFallback },
  { id: 'model-deprecated', check: modelDeprecated },
  { id: 'unknown-builtin', check: unknownBuiltin },
  { id: 'plugin-options', check: pluginOptions },
  { id: 'memory-backend', check: memoryBackend },
  { id: 'duplicate-tool', check: duplicateTool },
  { id: 'agent-cycle', check: agentCycle },
  { id: 'single-parent', check: singleParent },
  { id: 'workflow-constraints', check: workflowConstraints },
  { id: 'module-path', check: modulePath },
  { id: 'file-path', check: filePath },
  { id: 'output-schema-valid', check: outputSchemaValid },
  { id: 'env-required', check: envRequired },
  { id: 'env-empty', check: envEmpty },
  { id: 'env-values', check: envValues },
  { id: 'unsupported-setting', check: unsupportedSetting },
  { id: 'instruction-template', check: instructionTemplate },
  { id: 'command-argv', check: commandArgv },
  { id: 'approval-rule', check: approvalRules },
  { id: 'unset-state-key', check: unsetStateKey },
  { id: 'test-expectation', check: testDocuments },
  { id: 'schedule-timing', check: scheduleTiming },
];
