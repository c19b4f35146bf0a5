/** Under a list's toolbar: how many are shown, the sidebar's server scope (removable), and a load error. */
import { Alert, Badge, Group, Text } from '@mantine/core';
import { navigation } from '../state/navigation';

export function ListStatus({ count, testId, scopeName, error, errorTitle }: { count: string; testId: string; scopeName?: string; error: string | null; errorTitle: string }) {
  return (
    <>
      <Group gap={6} justify="space-between" wrap="nowrap">
        <Text size="xs" c="dimmed" data-testid={testId}>
          {count}
        </Text>
        {scopeName && (
          <Badge size="sm" variant="light" rightSection={<span style={{ cursor: 'pointer' }} onClick={() => navigation.selectServer(undefined)} aria-label="Clear server scope">×</span>}>
            only {scopeName}
          </Badge>
        )}
      </Group>
      {error && (
        <Alert color="red" p="xs" title={errorTitle} className="pre-wrap">
          {error}
        </Alert>
      )}
    </>
  );
}
