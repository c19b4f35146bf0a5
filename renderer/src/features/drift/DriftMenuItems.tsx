/** A server menu's "Pin as baseline" and "Compare with baseline". */
import { Menu } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { ServerStatus } from '../../../../contract';
import { useApi } from '../../api/context';
import { navigation } from '../../state/navigation';
import { useStore } from '../../state/useStore';
import { getDriftStore } from './drift-store';

export function DriftMenuItems({ server }: { server: ServerStatus }) {
  const api = useApi();
  const store = getDriftStore(api);
  const status = useStore(store.statuses).get(server.id);
  const pinned = status !== undefined && status.state !== 'none';
  const connected = server.state === 'connected';
  const pin = () =>
    api.baselinePin({ serverId: server.id }).then(
      (baseline) => {
        store.refresh();
        const s = baseline.snapshot;
        notifications.show({ title: 'Baseline pinned', message: `${server.name}: ${s.tools.length} tools, ${s.resources.length} resources, ${s.resourceTemplates.length} templates, ${s.prompts.length} prompts. Every connect is compared with it.` });
      },
      (e: Error) => notifications.show({ color: 'red', title: 'Pinning the baseline failed', message: e.message }),
    );
  return (
    <>
      <Menu.Item disabled={!connected} onClick={() => void pin()} data-testid="server-pin-baseline" title={connected ? undefined : 'Connect the server to pin its interface'}>
        {pinned ? 'Pin as baseline again' : 'Pin as baseline'}
      </Menu.Item>
      <Menu.Item
        disabled={!pinned}
        onClick={() => navigation.showRecordings({ tab: 'compare', a: { kind: 'baseline', serverId: server.id }, b: { kind: 'live', serverId: server.id } })}
        data-testid="server-compare-baseline"
      >
        Compare with baseline
      </Menu.Item>
    </>
  );
}
