/**
 * The MCP App host's pure rules (renderer/src/features/apps/host/host-context.ts): the host
 * context and capabilities it sends, the style variables read from our theme, which links an
 * app may ask to open, the frame's bounds, the partial-input throttle, the model panel's list.
 */
import { describe, expect, it } from 'vitest';
import {
  approvedCsp,
  buildHostContext,
  checkAppLink,
  clampFrameHeight,
  cspLines,
  hostCapabilities,
  logEntryFromApp,
  mcpResources,
  permissionsObject,
  pushNewest,
  sizePreset,
  styleVariables,
  throttleLatest,
} from '../../renderer/src/features/apps/host/host-context';

describe('host context', () => {
  it('says what Switchboard is and where the app runs', () => {
    const ctx = buildHostContext({
      theme: 'dark',
      variables: { '--color-text-primary': '#c9c9c9' },
      displayMode: 'inline',
      container: { width: 640.4 },
      locale: 'en-GB',
      timeZone: 'Europe/Paris',
      platform: 'web',
      tool: { name: 'get-time', description: 'Tells the time', inputSchema: { type: 'object' } },
    });
    expect(ctx).toEqual({
      theme: 'dark',
      styles: { variables: { '--color-text-primary': '#c9c9c9' } },
      displayMode: 'inline',
      availableDisplayModes: ['inline', 'fullscreen', 'pip'],
      containerDimensions: { width: 640, maxHeight: 4000 },
      locale: 'en-GB',
      timeZone: 'Europe/Paris',
      platform: 'web',
      userAgent: 'Switchboard',
      deviceCapabilities: { hover: true },
      toolInfo: { tool: { name: 'get-time', description: 'Tells the time', inputSchema: { type: 'object' } } },
    });
    // a fixed size (a preset, fullscreen) is a height, not a bound
    expect(buildHostContext({ theme: 'light', variables: {}, displayMode: 'fullscreen', container: { width: 320, height: 480 }, locale: 'en', timeZone: 'UTC', platform: 'desktop' }).containerDimensions).toEqual({ width: 320, height: 480 });
  });

  it('reads our Mantine palette per scheme (so the other theme can be sent), passes literals, drops empty or block-breaking values', () => {
    const values: Record<string, string> = {
      '--mantine-color-white': '#fff',
      '--mantine-color-black': '#000',
      '--mantine-color-dark-7': '#242424',
      '--mantine-color-dark-0': '#c9c9c9',
      '--mantine-color-dark-6': '#2e2e2e',
      '--mantine-color-gray-0': '#f8f9fa',
      '--mantine-font-family': '-apple-system, sans-serif',
      '--mantine-radius-md': 'calc(0.5rem * 1)',
      '--mantine-color-gray-6': 'red; } body { display:none',
    };
    const read = (name: string) => values[name] ?? '';
    const dark = styleVariables('dark', read);
    expect(dark['--color-background-primary']).toBe('#242424');
    expect(dark['--color-background-secondary']).toBe('#2e2e2e');
    expect(dark['--color-text-primary']).toBe('#c9c9c9');
    expect(dark['--font-sans']).toBe('-apple-system, sans-serif');
    expect(dark['--border-radius-md']).toBe('calc(0.5rem * 1)');
    expect(dark['--font-weight-bold']).toBe('700');
    expect(dark['--color-background-info']).toBeUndefined();
    const light = styleVariables('light', read);
    expect(light['--color-background-primary']).toBe('#fff');
    expect(light['--color-text-primary']).toBe('#000');
    expect(light['--color-background-secondary']).toBe('#f8f9fa');
    expect(light['--color-text-secondary']).toBeUndefined();
  });

  it('declares only what the host does, with the granted permissions and the approved CSP domains', () => {
    const caps = hostCapabilities({
      declared: { connectDomains: ['https://api.example.com', '*'], resourceDomains: ['https://cdn.example.com'] },
      refused: [{ directive: 'connect-src', value: '*', reason: 'a wildcard' }],
      granted: ['clipboardWrite'],
    });
    expect(caps.serverTools).toEqual({});
    expect(caps.serverResources).toEqual({});
    expect(caps.openLinks).toEqual({});
    expect(caps.logging).toEqual({});
    expect(caps.downloadFile).toBeUndefined();
    expect(caps.sampling).toBeUndefined();
    expect(caps.sandbox).toEqual({ permissions: { clipboardWrite: {} }, csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] } });
    expect(JSON.stringify(caps.experimental)).toMatch(/go nowhere/);
    expect(permissionsObject([])).toEqual({});
    expect(approvedCsp({ declared: {}, refused: [] })).toEqual({});
  });
});

describe('links an app asks to open', () => {
  it('takes http and https, shows the host apart', () => {
    expect(checkAppLink('https://modelcontextprotocol.io/docs?x=1#y')).toEqual({ ok: true, href: 'https://modelcontextprotocol.io/docs?x=1#y', scheme: 'https://', host: 'modelcontextprotocol.io', rest: '/docs?x=1#y' });
    expect(checkAppLink('http://127.0.0.1:8080/')).toMatchObject({ ok: true, host: '127.0.0.1:8080' });
    // a look-alike host shows as punycode
    expect(checkAppLink('https://exаmple.com/')).toMatchObject({ ok: true, host: 'xn--exmple-4nf.com' });
  });

  it('refuses every other scheme, credentials, and non-URLs without asking', () => {
    for (const bad of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', 'blob:https://a/b', 'mailto:x@y.z', 'https://user:pw@example.com/', 'not a url', '', 42, undefined, `https://a.example/${'x'.repeat(9000)}`]) {
      const verdict = checkAppLink(bad);
      expect(verdict.ok, String(bad)).toBe(false);
      if (!verdict.ok) expect(verdict.reason).toMatch(/^Refused/);
    }
    expect(checkAppLink('javascript:alert(1)')).toMatchObject({ reason: expect.stringMatching(/javascript:/) });
  });
});

describe('frame bounds and presets', () => {
  it('keeps the height the app asks for within 40–4000 px, and ignores what is not a number', () => {
    expect(clampFrameHeight(300.6)).toBe(301);
    expect(clampFrameHeight(1)).toBe(40);
    expect(clampFrameHeight(1e9)).toBe(4000);
    expect(clampFrameHeight(Number.NaN)).toBeNull();
    expect(clampFrameHeight(Infinity)).toBeNull();
    expect(clampFrameHeight('300')).toBeNull();
  });

  it('knows its presets, and falls back to full width', () => {
    expect(sizePreset('320x480')).toMatchObject({ width: 320, height: 480 });
    expect(sizePreset('nonsense').value).toBe('full');
    expect(sizePreset(null).width).toBeUndefined();
  });

  it('lists the policy one directive a line', () => {
    expect(cspLines("default-src 'none'; script-src 'unsafe-inline' http://127.0.0.1:4/sandbox-proxy.js;;  img-src data: ")).toEqual(["default-src 'none'", "script-src 'unsafe-inline' http://127.0.0.1:4/sandbox-proxy.js", 'img-src data:']);
  });
});

describe('throttleLatest (partial tool input)', () => {
  it('sends the first at once, then the newest at most once per gap', () => {
    let now = 0;
    const timers: { fn: () => void; at: number }[] = [];
    const sent: number[] = [];
    const t = throttleLatest<number>(250, (v) => sent.push(v), {
      now: () => now,
      set: (fn, ms) => timers.push({ fn, at: now + ms }),
      clear: () => timers.splice(0),
    });
    const advance = (ms: number) => {
      now += ms;
      for (const x of timers.filter((y) => y.at <= now)) {
        timers.splice(timers.indexOf(x), 1);
        x.fn();
      }
    };
    t.push(1);
    t.push(2);
    t.push(3);
    expect(sent).toEqual([1]);
    advance(249);
    expect(sent).toEqual([1]);
    advance(1);
    expect(sent).toEqual([1, 3]);
    advance(1000);
    t.push(4);
    expect(sent).toEqual([1, 3, 4]);
    t.push(5);
    t.cancel();
    advance(1000);
    expect(sent).toEqual([1, 3, 4]);
  });
});

describe('what the bridge hands on', () => {
  it('turns notifications/message into a bounded log entry at its own level', () => {
    expect(logEntryFromApp({ level: 'error', logger: 'app', data: { a: 1 } }, 7)).toEqual({ ts: 7, level: 'error', kind: 'log', text: '[app] {"a":1}' });
    expect(logEntryFromApp({ level: 'loud', data: 'x' }, 7).level).toBe('info');
    expect(logEntryFromApp(null, 7).text).toBe('undefined');
    expect(logEntryFromApp({ data: 'y'.repeat(100) }, 7, 10).text).toBe(`${'y'.repeat(10)}…`);
  });

  it('lists only the app server’s resources, in MCP shapes', () => {
    const list = {
      resources: [
        { serverId: 's1', serverName: 'one', uri: 'ui://a', name: 'a', mimeType: 'text/html;profile=mcp-app' },
        { serverId: 's2', serverName: 'two', uri: 'file:///secret', name: 'secret' },
      ],
      templates: [{ serverId: 's1', serverName: 'one', uriTemplate: 'x://{id}', name: 'x' }],
    };
    expect(mcpResources(list, 's1')).toEqual({ resources: [{ uri: 'ui://a', name: 'a', mimeType: 'text/html;profile=mcp-app' }], resourceTemplates: [{ uriTemplate: 'x://{id}', name: 'x' }] });
  });

  it('keeps the model panel newest first and bounded', () => {
    let list: number[] = [];
    for (let i = 0; i < 60; i++) list = pushNewest(list, i, 50);
    expect(list).toHaveLength(50);
    expect(list[0]).toBe(59);
    expect(list.at(-1)).toBe(10);
  });
});
