/**
 * AppHost, loaded on demand: the bridge (ext-apps and the part of the MCP client SDK it needs) is
 * fetched the first time an app shows, so it is not in the renderer's first script.
 */
import { Text } from '@mantine/core';
import { Suspense, lazy } from 'react';
import type { AppHostProps } from './AppHost';

const Host = lazy(() => import('./AppHost').then((m) => ({ default: m.AppHost })));

export function AppHost(props: AppHostProps) {
  return (
    <Suspense
      fallback={
        <Text size="sm" c="dimmed" data-testid="app-host-loading">
          Loading the app host…
        </Text>
      }
    >
      <Host {...props} />
    </Suspense>
  );
}
