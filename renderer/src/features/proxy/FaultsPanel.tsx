/**
 * A proxied session's faults (#12): the faults in force with how often each matched (seen) and
 * was applied (hits), as the proxy reports them; a form to add one, limited to what the
 * session's transport can inject; Apply and Clear all. The proxy picks a change up within a
 * second and notes it in the trace (kind `fault`), so Traffic shows what was injected.
 */
import { Alert, Button, CloseButton, Group, Modal, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Fault, FaultType, ProxySession } from '../../../../contract';
import { useApi } from '../../api/context';
import { clientLabel } from '../../state/proxy-sessions';
import { FAULT_DESCRIPTIONS, FAULT_PARAMS, buildFault, defaultForm, describeFault, isScoped, type FaultForm } from './fault-form';

export function FaultsPanel({ session, onClose }: { session: ProxySession | undefined; onClose(): void }) {
  return (
    <Modal opened={session !== undefined} onClose={onClose} title={session ? `Faults in ${session.info.name}` : 'Faults'} size="lg" onClick={(e) => e.stopPropagation()}>
      {session && <Panel key={session.id} session={session} />}
    </Modal>
  );
}

function Panel({ session }: { session: ProxySession }) {
  const api = useApi();
  const supported = session.supportedFaults as FaultType[];
  const [form, setForm] = useState<FaultForm | undefined>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  /** What was asked for, until the proxy reports it in force. */
  const [waiting, setWaiting] = useState<string | undefined>();
  const inForce = session.faults;
  const key = JSON.stringify(inForce.map((a) => a.fault));
  useEffect(() => {
    if (waiting !== undefined && waiting === key) setWaiting(undefined);
  }, [key, waiting]);

  const send = (faults: Fault[]) => {
    setBusy(true);
    setFailure(undefined);
    api.proxySetFaults({ id: session.id, faults }).then(
      () => {
        setWaiting(JSON.stringify(faults));
        setForm(undefined);
        setErrors({});
      },
      (e: Error) => setFailure(e.message),
    ).finally(() => setBusy(false));
  };
  const apply = () => {
    if (!form) return;
    const built = buildFault(form);
    if (built.errors) return setErrors(built.errors);
    send([...inForce.map((a) => a.fault), built.fault]);
  };
  const live = session.state === 'live';
  /** A field changed: its own problem (and the whole fault's) is no longer what it says. */
  const edit = (next: FaultForm, key: string) => {
    setForm(next);
    setErrors(({ [key]: _field, fault: _whole, ...rest }) => rest);
  };

  return (
    <Stack gap="sm" data-testid="proxy-faults-panel" data-proxy-id={session.id}>
      <Text size="xs" c="dimmed">
        {session.info.transport} proxy · {session.info.target.length > 120 ? `${session.info.target.slice(0, 120)}…` : session.info.target}
        {clientLabel(session) ? ` · client ${clientLabel(session)}` : ''}. Faults act on the real server&apos;s traffic to the real client; every change and every
        injection is an event (kind <code>fault</code>) in Traffic.
      </Text>
      {!live && <Alert color="gray" variant="light" p="xs">This session has ended: its proxy is not running, so faults cannot be changed.</Alert>}
      {inForce.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="proxy-faults-none">
          No faults in force: the proxy passes everything through untouched.
        </Text>
      ) : (
        <Table withTableBorder withColumnBorders fz="xs" verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Fault</Table.Th>
              <Table.Th w={70}>Seen</Table.Th>
              <Table.Th w={70}>Hits</Table.Th>
              <Table.Th w={36} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {inForce.map((armed, i) => (
              <Table.Tr key={armed.id} data-testid="proxy-fault-row" data-type={armed.fault.type} data-hits={armed.hits} data-seen={armed.seen}>
                <Table.Td className="mono">
                  {describeFault(armed.fault)}
                  {armed.exhausted ? <Text span size="xs" c="dimmed"> (exhausted)</Text> : null}
                </Table.Td>
                <Table.Td>{armed.seen}</Table.Td>
                <Table.Td>{armed.hits}</Table.Td>
                <Table.Td>
                  <CloseButton size="sm" aria-label={`Remove ${armed.fault.type}`} disabled={busy || !live} onClick={() => send(inForce.filter((_, j) => j !== i).map((a) => a.fault))} data-testid="proxy-fault-remove" />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {waiting !== undefined && (
        <Text size="xs" c="yellow.8" data-testid="proxy-faults-waiting">
          Asked the proxy; waiting for it to report the change (it checks every 250 ms)…
        </Text>
      )}
      {form ? (
        <Stack gap={6} p="xs" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 6 }} data-testid="proxy-fault-form">
          <NativeSelect
            label="Fault"
            size="xs"
            value={form.type}
            onChange={(e) => {
              setForm(defaultForm(e.currentTarget.value as FaultType));
              setErrors({});
            }}
            data={supported.map((type) => ({ value: type, label: type }))}
            description={FAULT_DESCRIPTIONS[form.type]}
            data-testid="proxy-fault-type"
          />
          <Group gap={6} grow align="flex-start">
            {isScoped(form.type) && (
              <TextInput
                label="Method"
                size="xs"
                value={form.method}
                onChange={(e) => edit({ ...form, method: e.currentTarget.value }, 'method')}
                description="JSON-RPC method(s), comma-separated; empty: every request"
                error={errors.method}
                data-testid="proxy-fault-method"
              />
            )}
            {isScoped(form.type) && (
              <TextInput
                label="Rate (%)"
                size="xs"
                value={form.rate}
                onChange={(e) => edit({ ...form, rate: e.currentTarget.value }, 'rate')}
                description="share of matching requests"
                error={errors.rate}
                inputMode="decimal"
                data-testid="proxy-fault-rate"
              />
            )}
          </Group>
          {(FAULT_PARAMS[form.type] ?? []).length > 0 && (
            <Group gap={6} grow align="flex-start">
              {(FAULT_PARAMS[form.type] ?? []).map((field) =>
                field.kind === 'select' ? (
                  <NativeSelect
                    key={field.key}
                    label={field.label}
                    size="xs"
                    value={form.params[field.key]}
                    data={[...(field.options ?? [])]}
                    onChange={(e) => edit({ ...form, params: { ...form.params, [field.key]: e.currentTarget.value } }, field.key)}
                    error={errors[field.key]}
                    data-testid={`proxy-fault-param-${field.key}`}
                  />
                ) : (
                  <TextInput
                    key={field.key}
                    label={field.label}
                    size="xs"
                    value={form.params[field.key] ?? ''}
                    placeholder={field.optional ? 'optional' : undefined}
                    description={field.hint}
                    onChange={(e) => edit({ ...form, params: { ...form.params, [field.key]: e.currentTarget.value } }, field.key)}
                    error={errors[field.key]}
                    inputMode={field.kind === 'int' ? 'numeric' : undefined}
                    data-testid={`proxy-fault-param-${field.key}`}
                  />
                ),
              )}
            </Group>
          )}
          {errors.fault && (
            <Text size="xs" c="red" data-testid="proxy-fault-error">
              {errors.fault}
            </Text>
          )}
        </Stack>
      ) : null}
      {failure && (
        <Alert color="red" variant="light" p="xs" data-testid="proxy-faults-failure">
          {failure}
        </Alert>
      )}
      <Group gap={6} justify="space-between">
        <Group gap={6}>
          {form ? (
            <Button size="xs" variant="default" onClick={() => setForm(undefined)}>
              Cancel
            </Button>
          ) : (
            <Button size="xs" variant="light" disabled={!live || supported.length === 0} onClick={() => setForm(defaultForm(supported.includes('latency') ? 'latency' : supported[0]!))} data-testid="proxy-fault-add">
              Add a fault
            </Button>
          )}
          <Button size="xs" onClick={apply} disabled={!form || !live} loading={busy} data-testid="proxy-faults-apply">
            Apply
          </Button>
        </Group>
        <Button size="xs" color="red" variant="subtle" disabled={!live || inForce.length === 0 || busy} onClick={() => send([])} data-testid="proxy-faults-clear">
          Clear all
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        A {session.info.transport} proxy can inject: {supported.join(', ')}.
      </Text>
    </Stack>
  );
}
