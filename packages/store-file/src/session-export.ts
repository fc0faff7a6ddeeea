// The export format is core's, so a session moves between any two stores.
export { assertSessionExport, exportSessionTree, flattenExport, type SessionExport } from '@agentctl/core';
