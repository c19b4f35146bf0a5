/** Two interfaces compared (recordings, servers, baseline vs now). GROUNDWORK STUB: the drift helper builds it. */
import { Text } from '@mantine/core';
import type { InterfaceRef, ServerStatus } from '../../../../contract';

export interface ComparePanelProps {
  servers: ServerStatus[];
  a?: InterfaceRef;
  b?: InterfaceRef;
}

export function ComparePanel(_props: ComparePanelProps) {
  return (
    <Text size="sm" c="dimmed">
      Comparing interfaces is not built yet.
    </Text>
  );
}
