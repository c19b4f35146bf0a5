/** The app's settings in one place (the palette's "Settings…"): theme, remembered arguments, how to sign in. */
import { Button, Modal, SegmentedControl, Stack, Switch, Text } from '@mantine/core';
import { useMantineColorScheme } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { AppSettings } from '../../../../contract';
import { useApi } from '../../api/context';

export function SettingsModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const api = useApi();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const [settings, setSettings] = useState<AppSettings | undefined>();
  const [desktop, setDesktop] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!opened) return;
    let live = true;
    void Promise.all([api.getSettings(), api.appInfo()]).then(
      ([s, info]) => {
        if (!live) return;
        setSettings(s);
        setDesktop(info.carrier === 'electron');
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [api, opened]);

  // What main kept wins (a refused update puts the switch back).
  const update = (patch: Partial<AppSettings>) =>
    api.updateSettings(patch).then(setSettings, (e: Error) => setError(e.message));

  return (
    <Modal opened={opened} onClose={onClose} title="Settings" size="md" data-testid="settings-modal">
      <Stack gap="md">
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Theme
          </Text>
          <SegmentedControl
            size="xs"
            value={colorScheme}
            onChange={(v) => setColorScheme(v as 'light' | 'dark' | 'auto')}
            data={[
              { label: 'Light', value: 'light' },
              { label: 'Dark', value: 'dark' },
              { label: 'Follow the OS', value: 'auto' },
            ]}
            data-testid="settings-theme"
          />
        </Stack>
        {settings && (
          <SettingSwitch
            settings={settings}
            name="auditArgumentValues"
            onChange={update}
            label="Remember tool arguments"
            description="Keeps each tool's last arguments to pre-fill its form, and argument values in the call audit, with the server's configured secrets redacted. Off: no argument value is written to disk."
            testId="settings-remember-arguments"
          />
        )}
        {settings && desktop && (
          <SettingSwitch
            settings={settings}
            name="oauthSystemBrowser"
            onChange={update}
            label="Sign in through the system browser"
            description="Instead of a Switchboard login window."
            testId="settings-system-browser"
          />
        )}
        <Text size="xs" c="dimmed">
          Each server's own settings (timeouts, retries, Connect at start, what it may ask) are in its Edit… form in the server list.
        </Text>
        {error && (
          <Text size="xs" c="red">
            {error}
          </Text>
        )}
        <Button size="xs" variant="default" onClick={onClose} style={{ alignSelf: 'flex-end' }}>
          Close
        </Button>
      </Stack>
    </Modal>
  );
}

type SwitchSetting = { [K in keyof AppSettings]: AppSettings[K] extends boolean ? K : never }[keyof AppSettings];

/** One on/off setting: what main kept is what shows. */
function SettingSwitch({ settings, name, onChange, label, description, testId }: { settings: AppSettings; name: SwitchSetting; onChange(patch: Partial<AppSettings>): unknown; label: string; description: string; testId: string }) {
  return <Switch size="sm" label={label} description={description} checked={settings[name]} onChange={(e) => void onChange({ [name]: e.currentTarget.checked })} data-testid={testId} />;
}
