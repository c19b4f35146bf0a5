/**
 * The MCP Apps instance registry: at most 64 live (the oldest closed and unregistered from the
 * sandbox host), and the per-instance budget of recorded bridge messages (a fake clock: the
 * budget's refill is the thing under test, not the machine's speed).
 */
import { describe, expect, it } from 'vitest';
import { AppInstances, BURST, CLOSE_GRACE_MS, MAX_LIVE, RATE, type LiveApp } from '../../main/core/apps/instances';
import type { AppSandboxHost, SandboxPage } from '../../main/core/apps/sandbox-host';

class Sandbox implements AppSandboxHost {
  readonly origin = 'http://127.0.0.1:1';
  readonly unregistered: string[] = [];
  register(page: SandboxPage): string {
    return `${this.origin}/${page.instanceId}`;
  }
  unregister(instanceId: string): void {
    this.unregistered.push(instanceId);
  }
}

const app = (instanceId: string, serverId = 's1'): LiveApp => ({
  instanceId,
  serverId,
  serverName: serverId,
  uri: 'ui://x/app.html',
  mimeType: 'text/html;profile=mcp-app',
  sandboxUrl: '',
  sandboxOrigin: '',
  csp: '',
  declared: {},
  refused: [],
  permissions: [],
  granted: [],
  notes: [],
  durationMs: 0,
});

describe('AppInstances', () => {
  it(`keeps at most ${MAX_LIVE}: opening one more closes the oldest and unregisters its page`, () => {
    const sandbox = new Sandbox();
    const apps = new AppInstances(sandbox);
    for (let i = 0; i < MAX_LIVE; i++) expect(apps.add(app(`a${i}`))).toEqual([]);
    expect(apps.add(app('newest'))).toEqual(['a0']);
    expect(apps.size).toBe(MAX_LIVE);
    expect(apps.get('a0')).toBeUndefined();
    expect(apps.get('newest')?.instanceId).toBe('newest');
    expect(sandbox.unregistered).toEqual(['a0']);
  });

  it('close, closeServer and closeAll unregister what they close, once', () => {
    const sandbox = new Sandbox();
    const apps = new AppInstances(sandbox);
    apps.add(app('a', 's1'));
    apps.add(app('b', 's2'));
    apps.add(app('c', 's2'));
    expect(apps.close('a')).toBe(true);
    expect(apps.close('a')).toBe(false);
    expect(apps.closeServer('s2')).toBe(2);
    apps.add(app('d'));
    apps.closeAll();
    expect(sandbox.unregistered).toEqual(['a', 'b', 'c', 'd']);
    expect(apps.size).toBe(0);
  });

  it(`records a burst of ${BURST}, then ${RATE} a second; an unknown instance gets nothing`, () => {
    let now = 0;
    const apps = new AppInstances(undefined, () => now);
    apps.add(app('a'));
    expect(apps.take('a', 6_000)).toBe(6_000);
    expect(apps.take('a', 6_000)).toBe(BURST - 6_000);
    expect(apps.take('a', 1)).toBe(0);
    now += 500;
    expect(apps.take('a', 5_000)).toBe(RATE / 2);
    now += 60_000;
    expect(apps.take('a', 50_000)).toBe(BURST);
    expect(apps.take('nope', 10)).toBe(0);
  });

  it(`a closed instance's last messages are still recorded for ${CLOSE_GRACE_MS / 1000} s, on its own budget; it calls nothing`, () => {
    let now = 0;
    const apps = new AppInstances(new Sandbox(), () => now);
    apps.add(app('a'));
    expect(apps.take('a', BURST - 5)).toBe(BURST - 5);
    expect(apps.close('a')).toBe(true);
    // The page flushes what its bridge still held after telling main it closed the app.
    expect(apps.get('a')).toBeUndefined();
    expect(apps.recorded('a')?.instanceId).toBe('a');
    expect(apps.take('a', 10)).toBe(5);
    expect(apps.size).toBe(0);
    now += CLOSE_GRACE_MS + 1;
    expect(apps.recorded('a')).toBeUndefined();
    expect(apps.take('a', 1)).toBe(0);
    expect(apps.recorded('never-opened')).toBeUndefined();
  });
});
