/**
 * Which view is showing, and requests from one view to another ("show this exchange in
 * Traffic", "filter Traffic to this second", "open this tool"). A tiny store outside React
 * (`state/store.ts`), read with useNavigation, so views stay decoupled: they publish intents, not props.
 */
import type { InterfaceRef } from '../../../contract';
import { Store } from './store';
import { useStore } from './useStore';

export const VIEWS = ['tools', 'apps', 'resources', 'prompts', 'traffic', 'charts', 'timeline', 'logs', 'auth', 'recordings', 'checks'] as const;
export type View = (typeof VIEWS)[number];

export type TrafficFocus =
  | { kind: 'seq'; seq: number }
  | { kind: 'time'; fromTs: number; toTs: number; servers?: string[] }
  | { kind: 'server'; serverId: string };

/** What the Recordings view should show: the library, a replay of a recording, or a comparison of two interfaces. */
export type RecordingsFocus = { tab: 'library'; recordingId?: string } | { tab: 'replay'; source: { id: string; name: string } } | { tab: 'compare'; a?: InterfaceRef; b?: InterfaceRef };

/** What the Checks view should show: the conformance suite or the doctor, for one server; `run` starts it. */
export type ChecksFocus = { serverId: string; tab: 'conformance' | 'doctor'; run?: boolean };

export interface NavigationState {
  view: View;
  /** A request for the Traffic view, consumed when it shows. `nonce` makes repeated requests distinct. */
  traffic?: TrafficFocus & { nonce: number };
  /** A server to show in the Auth view. */
  auth?: { serverId: string; nonce: number };
  /** A tool to select in the Tools view. */
  tool?: { name: string; nonce: number };
  /** A resource to select (and read) in the Resources view: a link from a tool result. */
  resource?: { serverId: string; uri: string; nonce: number };
  /** The trace the Traffic/Charts/Timeline views read: live, or an imported file (read-only). */
  source: { id: string; name: string };
  /** A request for the Recordings view, consumed when it shows. */
  recordings?: RecordingsFocus & { nonce: number };
  /** A request for the Checks view (#16): a server, which check, and whether to start it at once. */
  checks?: ChecksFocus & { nonce: number };
  /** The server the sidebar has selected (filters views that offer per-server scope). */
  serverId?: string;
}

/** One per window, at module level: which view shows is the window's, not any API's. */
const state = new Store<NavigationState>({ view: 'tools', source: { id: 'live', name: 'Live' } });
let nonce = 0;

export const navigation = {
  get: state.get,
  subscribe: state.subscribe,
  show(view: View): void {
    state.patch({ view });
  },
  showTraffic(focus: TrafficFocus): void {
    state.patch({ view: 'traffic', traffic: { ...focus, nonce: ++nonce } });
  },
  openTool(name: string): void {
    state.patch({ view: 'tools', tool: { name, nonce: ++nonce } });
  },
  /** The Resources view, on one resource of one server (listed or not). */
  openResource(serverId: string, uri: string): void {
    state.patch({ view: 'resources', resource: { serverId, uri, nonce: ++nonce } });
  },
  /** The Auth view, on one server. */
  showAuth(serverId: string): void {
    state.patch({ view: 'auth', auth: { serverId, nonce: ++nonce } });
  },
  /** The Recordings view: its library, a replay, or a comparison (drift: baseline vs now). */
  showRecordings(focus: RecordingsFocus): void {
    state.patch({ view: 'recordings', recordings: { ...focus, nonce: ++nonce } });
  },
  /** The Checks view on one server: its conformance report or its doctor, started at once with `run`. */
  showChecks(focus: ChecksFocus): void {
    state.patch({ view: 'checks', checks: { ...focus, nonce: ++nonce } });
  },
  selectServer(serverId: string | undefined): void {
    state.patch({ serverId });
  },
  useSource(source: { id: string; name: string }): void {
    state.patch({ source });
  },
};

export function useNavigation(): NavigationState {
  return useStore(state);
}
