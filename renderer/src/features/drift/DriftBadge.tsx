/**
 * The sidebar's drift flag for one server: its interface changed against the pinned baseline
 * (a tool added or removed, a schema or a description changed — a description that changes
 * silently is how "rug pull" attacks work). One click opens the diff in the Compare tab.
 * Nothing shows for a server without a baseline.
 */
import { Badge, Tooltip } from '@mantine/core';
import { useEffect } from 'react';
import { useApi } from '../../api/context';
import { navigation } from '../../state/navigation';
import { useStore } from '../../state/useStore';
import { getDriftStore } from './drift-store';

export function DriftBadge({ serverId }: { serverId: string }) {
  const api = useApi();
  const store = getDriftStore(api);
  const status = useStore(store.statuses).get(serverId);
  // A view mounts again after the link came back: read the standing again (one fetch for every badge).
  useEffect(() => store.refresh(), [store]);
  if (!status || status.state === 'none') return null;
  const open = (event: React.MouseEvent) => {
    event.stopPropagation();
    navigation.showRecordings({ tab: 'compare', a: { kind: 'baseline', serverId }, b: { kind: 'live', serverId } });
  };
  if (status.state === 'changed') {
    const changes = status.diff?.changes ?? [];
    const breaking = changes.filter((c) => c.severity === 'breaking').length;
    const warnings = changes.filter((c) => c.severity === 'warning').length;
    const label = `The interface changed since its baseline: ${changes.length} change${changes.length === 1 ? '' : 's'}${breaking ? `, ${breaking} breaking` : ''}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}. A description that changes without notice is how "rug pull" attacks work. Click to see the diff.`;
    return (
      <Tooltip label={label} multiline maw={320} withinPortal>
        <Badge size="xs" color={breaking ? 'red' : 'orange'} variant="filled" style={{ cursor: 'pointer', flex: 'none' }} onClick={open} data-testid="drift-badge" data-state="changed" aria-label={label}>
          drift
        </Badge>
      </Tooltip>
    );
  }
  const label =
    status.state === 'same'
      ? `Matches its baseline (pinned ${status.pinnedAt ? new Date(status.pinnedAt).toLocaleString() : ''}), checked ${status.checkedAt ? new Date(status.checkedAt).toLocaleTimeString() : ''}.`
      : 'A baseline is pinned; not checked yet (it is checked on every connect).';
  return (
    <Tooltip label={label} multiline maw={320} withinPortal>
      <Badge size="xs" color="gray" variant="light" style={{ cursor: 'pointer', flex: 'none' }} onClick={open} data-testid="drift-badge" data-state={status.state} aria-label={label}>
        {status.state === 'same' ? 'baseline ✓' : 'baseline'}
      </Badge>
    </Tooltip>
  );
}
