/** What other features use of the Tools view: the schema form and a tool's call session (the Apps view runs app tools with them). */
export { SchemaForm } from './SchemaForm';
export { cancelRun, ensureSession, runCall, setArgs, useToolSession } from './calls-store';
export { CallErrorView, ToolResultView } from './ToolResultView';
export { schemaBounds, validateAgainst, type Issue, type Validation } from './validation';
export type { JsonSchema } from './schema';
