/**
 * The Recordings view: the library of recorded sessions, a replay of one, and interface
 * comparisons (drift). GROUNDWORK STUB: the library helper builds the library; the replay and
 * drift features supply their panels.
 */
import { Tabs, Text } from '@mantine/core';
import type { ServerStatus } from '../../../../contract';
import { ComparePanel } from '../drift';
import { ReplayPanel } from '../replay';
import { useNavigation } from '../../state/navigation';

export function RecordingsView({ servers }: { servers: ServerStatus[] }) {
  const nav = useNavigation();
  const focus = nav.recordings;
  return (
    <Tabs defaultValue={focus?.tab ?? 'library'} keepMounted={false} data-testid="recordings-view">
      <Tabs.List>
        <Tabs.Tab value="library" data-testid="recordings-tab-library">
          Library
        </Tabs.Tab>
        <Tabs.Tab value="replay" data-testid="recordings-tab-replay">
          Replay
        </Tabs.Tab>
        <Tabs.Tab value="compare" data-testid="recordings-tab-compare">
          Compare
        </Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="library" pt="md">
        <Text size="sm" c="dimmed">
          The library is not built yet.
        </Text>
      </Tabs.Panel>
      <Tabs.Panel value="replay" pt="md">
        <ReplayPanel servers={servers} source={focus?.tab === 'replay' ? focus.source : undefined} />
      </Tabs.Panel>
      <Tabs.Panel value="compare" pt="md">
        <ComparePanel servers={servers} a={focus?.tab === 'compare' ? focus.a : undefined} b={focus?.tab === 'compare' ? focus.b : undefined} />
      </Tabs.Panel>
    </Tabs>
  );
}
