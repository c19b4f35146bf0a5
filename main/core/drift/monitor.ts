/**
 * Baselines and drift (#13): a server's interface pinned as its baseline, checked against it on
 * every connect; a change is pushed as `driftChanged` and shown in the sidebar.
 *
 * GROUNDWORK STUB: the drift helper implements it (with interface.ts and diff.ts beside it).
 */
import type { DriftStatus } from '../../../contract';

export interface DriftMonitorOptions {
  /** Where baselines are kept (a JSON file beside the settings); absent: in memory. */
  file?: string;
  onChange?: (status: DriftStatus) => void;
}

export class DriftMonitor {
  constructor(readonly options: DriftMonitorOptions = {}) {}

  status(): DriftStatus[] {
    return [];
  }

  close(): void {}
}
