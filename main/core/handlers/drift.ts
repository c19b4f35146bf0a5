/** Handlers for interface snapshots, diffs, baselines and drift. GROUNDWORK STUB: the drift helper implements them. */
import type { Handlers } from '../dispatcher';
import { CoreError } from '../errors';
import type { CoreContext } from './context';

type DriftHandlers = Pick<Handlers, 'interfaceSnapshot' | 'interfaceDiff' | 'baselinePin' | 'baselineClear' | 'driftStatus'>;

export function driftHandlers(ctx: CoreContext): DriftHandlers {
  const notYet = async (): Promise<never> => {
    throw new CoreError('failed', 'Interface diffs are not built yet.');
  };
  return { interfaceSnapshot: notYet, interfaceDiff: notYet, baselinePin: notYet, baselineClear: notYet, driftStatus: async () => ctx.drift.status() };
}
