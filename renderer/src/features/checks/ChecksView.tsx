/**
 * The Checks view (#16): judge one server. Two tabs over the same server picker: the official
 * conformance suite's server scenarios (features/conformance) and the connection doctor
 * (features/doctor). Opened from a server's menu, from "Diagnose" on a server in error, or here.
 */
import { Group, Select, Tabs, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ServerStatus } from '../../../../contract';
import { isProxyServerId } from '../../../../contract';
import { ConformancePanel } from '../conformance';
import { DoctorPanel } from '../doctor';
import { useNavigation } from '../../state/navigation';

type Tab = 'conformance' | 'doctor';

export function ChecksView({ servers }: { servers: ServerStatus[] }) {
  const nav = useNavigation();
  const focus = nav.checks;
  const own = servers.filter((s) => !isProxyServerId(s.id));
  const [tab, setTab] = useState<Tab>(focus?.tab ?? 'conformance');
  const [serverId, setServerId] = useState<string | undefined>(focus?.serverId ?? nav.serverId ?? own[0]?.id);
  // Each request (a new nonce) shows its server and tab, even when the view is already open.
  useEffect(() => {
    if (!focus) return;
    setTab(focus.tab);
    setServerId(focus.serverId);
  }, [focus?.nonce]);
  const server = own.find((s) => s.id === serverId);
  /** A request to start at once is the panel's only for the request that asked (its nonce). */
  const runNonce = focus?.run && focus.serverId === serverId && focus.tab === tab ? focus.nonce : undefined;

  return (
    <div data-testid="checks-view">
      <Group gap="sm" mb="sm" wrap="nowrap">
        <Select
          size="xs"
          w={280}
          label="Server"
          placeholder="Pick a server"
          data={own.map((s) => ({ value: s.id, label: s.name }))}
          value={serverId ?? null}
          onChange={(v) => setServerId(v ?? undefined)}
          allowDeselect={false}
          data-testid="checks-server"
        />
      </Group>
      {!server ? (
        <Text size="sm" c="dimmed" data-testid="checks-empty">
          Add a server first: the checks run against one of your servers.
        </Text>
      ) : (
        <Tabs value={tab} onChange={(v) => v && setTab(v as Tab)} keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="conformance" data-testid="checks-tab-conformance">
              Conformance
            </Tabs.Tab>
            <Tabs.Tab value="doctor" data-testid="checks-tab-doctor">
              Doctor
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="conformance" pt="md">
            <ConformancePanel key={server.id} server={server} runNonce={runNonce} />
          </Tabs.Panel>
          <Tabs.Panel value="doctor" pt="md">
            <DoctorPanel key={server.id} server={server} runNonce={runNonce} />
          </Tabs.Panel>
        </Tabs>
      )}
    </div>
  );
}
