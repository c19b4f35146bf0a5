import '@mantine/core/styles.css';
import './app/app.css';
import { MantineProvider, createTheme } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiContext } from './api/context';
import { connectApi } from './api/carrier';
import { App } from './app/App';

const theme = createTheme({ primaryColor: 'indigo', fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, monospace' });
const root = createRoot(document.getElementById('root')!);

connectApi()
  .then(({ api, kind, onDisconnect }) => {
    root.render(
      <StrictMode>
        <MantineProvider theme={theme} defaultColorScheme="auto">
          <ApiContext.Provider value={api}>
            <App carrier={kind} onDisconnect={onDisconnect} />
          </ApiContext.Provider>
        </MantineProvider>
      </StrictMode>,
    );
  })
  .catch((error: Error) => {
    document.body.dataset.appState = 'error';
    root.render(<p style={{ padding: 24, fontFamily: 'sans-serif' }}>{error.message}</p>);
  });
