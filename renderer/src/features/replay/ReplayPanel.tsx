/** Replay: recorded requests sent again, old and new side by side. GROUNDWORK STUB: the replay helper builds it. */
import { Text } from '@mantine/core';
import type { ServerStatus } from '../../../../contract';

export interface ReplayPanelProps {
  servers: ServerStatus[];
  /** The recording (or trace source) to replay from; absent: the panel asks for one. */
  source?: { id: string; name: string };
}

export function ReplayPanel(_props: ReplayPanelProps) {
  return (
    <Text size="sm" c="dimmed">
      Replay is not built yet.
    </Text>
  );
}
