import '@mantine/core/styles.css';
import '@mantine/spotlight/styles.css';
import '@mantine/notifications/styles.css';
import './app/app.css';
import { MantineProvider, createTheme } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiContext, LinkContext } from './api/context';
import { connectApi } from './api/carrier';
import { App } from './app/App';
import { LiveContext } from './state/live';
import { SnapshotStore } from './state/snapshot-store';
import { TraceBuffer } from './state/trace-buffer';
import { getLogStore } from './features/logs/log-store';

const theme = createTheme({ primaryColor: 'indigo', fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' });
const root = createRoot(document.getElementById('root')!);

async function start(): Promise<void> {
  const { api, kind, link } = await connectApi();
  const live = { trace: new TraceBuffer(api), snapshots: new SnapshotStore(api) };
  await Promise.all([live.trace.start(), live.snapshots.start()]);
  // Main came back (maybe as a new process), or held pushes back while this page read slowly:
  // the live stores start over from what it holds.
  const reload = () => {
    for (const store of [live.trace, live.snapshots]) store.resync().catch((error: unknown) => console.error('Switchboard: reloading the live stores failed', error));
  };
  link.onReconnected(reload);
  link.onResync(reload);
  // Leases on whole feeds (the Timeline's trace events, the Logs view's lines) are given back when the page goes.
  const leased = () => [live.trace, getLogStore(api)];
  window.addEventListener('pagehide', () => leased().forEach((store) => store.leave()));
  window.addEventListener('pageshow', (event) => event.persisted && leased().forEach((store) => store.returned()));
  root.render(
    <StrictMode>
      <MantineProvider theme={theme} defaultColorScheme="auto">
        <Notifications position="bottom-right" />
        <ApiContext.Provider value={api}>
          <LinkContext.Provider value={link}>
            <LiveContext.Provider value={live}>
              <App carrier={kind} />
            </LiveContext.Provider>
          </LinkContext.Provider>
        </ApiContext.Provider>
      </MantineProvider>
    </StrictMode>,
  );
}

start().catch((error: Error) => {
  document.body.dataset.appState = 'error';
  root.render(<p style={{ padding: 24, fontFamily: 'sans-serif' }}>{error.message}</p>);
});
