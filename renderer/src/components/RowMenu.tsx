/** The "⋯" menu at the end of a sidebar row: opening it or choosing from it never selects the row. */
import { ActionIcon, Menu } from '@mantine/core';
import type { ReactNode } from 'react';

export function RowMenu({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon size="sm" variant="subtle" aria-label={label} onClick={(e) => e.stopPropagation()} data-testid={testId}>
          ⋯
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown onClick={(e) => e.stopPropagation()}>{children}</Menu.Dropdown>
    </Menu>
  );
}
