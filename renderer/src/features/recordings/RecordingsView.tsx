/**
 * The Recordings view: the library of recorded sessions, a replay of one, and interface
 * comparisons (drift). The replay and drift features supply their panels; a request from
 * elsewhere (`navigation.showRecordings`) picks the tab and what it shows.
 */
import { Tabs } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import { ComparePanel } from '../drift';
import { ReplayPanel } from '../replay';
import { useNavigation } from '../../state/navigation';
import { LibraryPanel } from './LibraryPanel';

type Tab = 'library' | 'replay' | 'compare';

export function RecordingsView({ servers }: { servers: ServerStatus[] }) {
  const nav = useNavigation();
  const focus = nav.recordings;
  const [tab, setTab] = useState<Tab>(focus?.tab ?? 'library');
  // Each request (a new nonce) shows its tab, even when the view is already open.
  useEffect(() => {
    if (focus) setTab(focus.tab);
  }, [focus?.nonce]);
  return (
    <Tabs value={tab} onChange={(v) => v && setTab(v as Tab)} keepMounted={false} data-testid="recordings-view">
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
        <LibraryPanel focusId={focus?.tab === 'library' ? focus.recordingId : undefined} />
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
