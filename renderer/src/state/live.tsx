/** The live stores (trace buffer, snapshots), created once per window and shared by the views. */
import { createContext, useContext, useEffect } from 'react';
import type { SnapshotStore } from './snapshot-store';
import type { TraceBuffer } from './trace-buffer';
import { useVersion } from './useStore';

export interface LiveStores {
  trace: TraceBuffer;
  snapshots: SnapshotStore;
}

export const LiveContext = createContext<LiveStores | null>(null);

function useLive(): LiveStores {
  const live = useContext(LiveContext);
  if (!live) throw new Error('useLive outside LiveContext');
  return live;
}

/** The trace buffer; the component re-renders on its throttled tick. */
export function useTraceBuffer(): TraceBuffer {
  const { trace } = useLive();
  useVersion(trace);
  return trace;
}

export function useSnapshotStore(): SnapshotStore {
  const { snapshots } = useLive();
  useVersion(snapshots);
  return snapshots;
}

/** While `active`, this view needs every live event in the buffer (a full-feed lease, `TraceBuffer.acquireFull`). */
export function useFullTraceFeed(active: boolean): void {
  const live = useContext(LiveContext);
  useEffect(() => {
    if (!active || !live) return;
    return live.trace.acquireFull();
  }, [active, live]);
}
