/**
 * Conformance runs outside React, one store per API: per server, the last report and the run in
 * flight (with its latest `checkProgress`). A run keeps going, and its report lands, when the
 * person switches tabs or views (the Checks view unmounts its panels).
 */
import type { CheckProgress, ConformanceReport } from '../../../../contract/checks';
import type { SwitchboardApi } from '../../../../contract/client';
import { perApi } from '../../state/per-api';
import { Signal } from '../../state/store';

export interface ConformanceRunState {
  runId: string;
  startedAt: number;
  progress?: CheckProgress;
  cancelling: boolean;
}

export interface ServerConformance {
  running?: ConformanceRunState;
  report?: ConformanceReport;
  /** The call itself failed (not the server: that is in the report). */
  error?: string;
}

class ConformanceRuns extends Signal {
  private readonly byServer = new Map<string, ServerConformance>();
  private readonly serverOfRun = new Map<string, string>();
  private runs = 0;

  constructor(private readonly api: SwitchboardApi) {
    super();
    api.on('checkProgress', (progress) => {
      if (progress.kind !== 'conformance') return;
      const serverId = this.serverOfRun.get(progress.runId);
      const state = serverId ? this.byServer.get(serverId) : undefined;
      if (!serverId || !state?.running || state.running.runId !== progress.runId) return;
      this.byServer.set(serverId, { ...state, running: { ...state.running, progress } });
      this.notify();
    });
  }

  get(serverId: string): ServerConformance {
    return this.byServer.get(serverId) ?? EMPTY;
  }

  async run(serverId: string): Promise<void> {
    if (this.byServer.get(serverId)?.running) return;
    const runId = `ui-${Date.now()}-${++this.runs}`;
    this.serverOfRun.set(runId, serverId);
    this.byServer.set(serverId, { ...this.get(serverId), running: { runId, startedAt: Date.now(), cancelling: false }, error: undefined });
    this.notify();
    try {
      const report = await this.api.conformanceRun({ serverId, runId });
      this.byServer.set(serverId, { report });
    } catch (error) {
      this.byServer.set(serverId, { ...this.get(serverId), running: undefined, error: error instanceof Error ? error.message : String(error) });
    } finally {
      this.serverOfRun.delete(runId);
      this.notify();
    }
  }

  async cancel(serverId: string): Promise<void> {
    const state = this.byServer.get(serverId);
    if (!state?.running || state.running.cancelling) return;
    this.byServer.set(serverId, { ...state, running: { ...state.running, cancelling: true } });
    this.notify();
    await this.api.checkCancel({ runId: state.running.runId }).catch(() => undefined);
  }
}

const EMPTY: ServerConformance = {};

export const conformanceRuns = perApi((api) => new ConformanceRuns(api));
