/** Small building blocks of the Auth view: key/value tables, parameter tables, bodies. */
import { Badge, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { TraceEvent } from '../../../../contract/trace';
import { JsonTree } from '../../components/JsonTree';
import { SafeText } from '../../components/SafeText';
import { formatBytes } from '../../components/format';
import { bodyText } from '../../components/raw-body';
import classes from './auth.module.css';
import { useFullBody } from './use-auth';

export type Row = [label: string, value: ReactNode | string | undefined, testId?: string];

/** Label/value rows; string values are server text and shown with SafeText; empty rows are skipped. */
export function Kv({ rows, testId }: { rows: Row[]; testId?: string }) {
  const shown = rows.filter(([, v]) => v !== undefined && v !== '');
  if (!shown.length) return null;
  return (
    <Table fz="xs" withRowBorders={false} verticalSpacing={2} horizontalSpacing={6} data-testid={testId} className={classes.kv}>
      <Table.Tbody>
        {shown.map(([label, value, rowTestId]) => (
          <Table.Tr key={label} data-testid={rowTestId} data-key={label}>
            <Table.Td className={classes.kvLabel}>{label}</Table.Td>
            <Table.Td className={classes.kvValue}>{typeof value === 'string' ? <SafeText text={value} clip={1_000} /> : value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Name/value parameters (a decoded URL's query, a form body) in a mono table. */
export function ParamTable({ params, testId, highlight }: { params: [string, string][]; testId?: string; highlight?: ReadonlySet<string> }) {
  if (!params.length) {
    return (
      <Text size="xs" c="dimmed">
        No parameters.
      </Text>
    );
  }
  return (
    <Table fz="xs" withTableBorder withColumnBorders verticalSpacing={2} horizontalSpacing={6} data-testid={testId} className={classes.params}>
      <Table.Tbody>
        {params.slice(0, 200).map(([name, value], i) => (
          <Table.Tr key={`${name}:${i}`} data-param={name}>
            <Table.Td className={classes.paramName}>
              <SafeText inline text={name} clip={100} />
              {highlight?.has(name) && (
                <Badge size="xs" ml={4} variant="light" color="gray">
                  spec
                </Badge>
              )}
            </Table.Td>
            <Table.Td className={classes.paramValue}>
              <SafeText text={value} clip={2_000} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Header names sorted, values as recorded (secrets were redacted when recorded). */
export function Headers({ headers, testId }: { headers: Record<string, string> | undefined; testId?: string }) {
  const rows = Object.entries(headers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (!rows.length) {
    return (
      <Text size="xs" c="dimmed">
        None recorded.
      </Text>
    );
  }
  return <ParamTable params={rows} testId={testId} />;
}

const RAW_CLIP = 100_000;

/** A request or response body: a JSON tree, or text; the whole payload is fetched when the stored one is a preview. */
export function Body({ event, testId }: { event: TraceEvent | undefined; testId?: string }) {
  const { value, loading, error } = useFullBody(event);
  if (!event || value === undefined || value === '') {
    return (
      <Text size="xs" c="dimmed" data-testid={testId}>
        {loading ? 'Loading the body…' : error ? `Could not load the body: ${error}` : 'No body.'}
      </Text>
    );
  }
  return (
    <div data-testid={testId} data-truncated={event.truncated || undefined}>
      {(event.bytes !== undefined || event.truncated) && (
        <Text size="xs" c={error ? 'red' : 'dimmed'} mb={2}>
          {formatBytes(event.bytes)}
          {event.truncated ? (loading ? ' · large: loading the whole of it…' : error ? ` · showing a preview (${error})` : ' · large, loaded whole') : ''}
        </Text>
      )}
      {value !== null && typeof value === 'object' ? (
        <JsonTree value={value} expandDepth={4} testId={testId ? `${testId}-tree` : undefined} />
      ) : (
        <pre className={classes.raw}>
          <SafeText text={bodyText(value).slice(0, RAW_CLIP)} clip={RAW_CLIP} />
        </pre>
      )}
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className={classes.section}>
      <Text size="xs" fw={600} mb={2}>
        {title}
      </Text>
      {children}
    </div>
  );
}
