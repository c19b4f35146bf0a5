import { Text } from '@mantine/core';
import type { ServerStatus } from '../../../../contract';

/** Placeholder while this view is being built (see the issue tracker). */
export function PromptsView(_props: { servers: ServerStatus[] }) {
  return <Text c="dimmed">This view is not built yet.</Text>;
}
