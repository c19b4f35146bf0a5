/**
 * An MCP App, run: main opens the instance (reads the `ui://` resource, builds its policy,
 * registers the sandbox proxy page on an origin that is not ours), the outer frame loads that
 * proxy page, and the ext-apps AppBridge speaks to the app through it over our traced, flood-
 * contained postMessage transport. The bridge's requests go through the contract like any
 * other call (tools/call refused by main unless the tool is visible to apps); links open only
 * after consent; what the app asks to send to a model is shown, since there is none.
 *
 * States on the root (`data-testid="app-host"`, `data-state`): loading → ready (the app sent
 * ui/notifications/initialized) | error (`app-error` says what failed) | stopped (the app asked
 * to be closed, or flooded the bridge).
 */
import { Alert, Badge, Button, CloseButton, Group, Modal, Stack, Text, useComputedColorScheme } from '@mantine/core';
import { AppBridge, buildAllowAttribute, type McpUiDisplayMode, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { AppInstance, AppPermission, ToolEntry } from '../../../../contract';
import { carrierKind } from '../../api/carrier';
import { useApi } from '../../api/context';
import { JsonTree } from '../../components/JsonTree';
import { SafeText } from '../../components/SafeText';
import { BridgeTransport } from './host/bridge-transport';
import { Devtools } from './host/Devtools';
import {
  FRAME_HEIGHT,
  MODEL_PANEL_MAX,
  buildHostContext,
  checkAppLink,
  clampFrameHeight,
  hostCapabilities,
  logEntryFromApp,
  mcpResources,
  permissionsObject,
  pushNewest,
  sizePreset,
  styleVariables,
  throttleLatest,
  type LinkVerdict,
  type ModelEntry,
  type SizePreset,
} from './host/host-context';
import { appInstances } from './host/instances';
import classes from './host/app-host.module.css';

export interface AppHostProps {
  /** The app tool (its `ui.resourceUri` names the resource). */
  tool: ToolEntry;
  /** Full tool arguments to send as `ui/notifications/tool-input`. */
  input?: Record<string, unknown>;
  /** True while the person is still editing: sent as `tool-input-partial`. */
  inputPartial?: boolean;
  /** The finished call's result (CallToolResult.result), sent as `tool-result`. */
  result?: Record<string, unknown>;
  /** The call was cancelled: sent as `tool-cancelled`. */
  cancelled?: boolean;
}

/** What an AppHost hears of a tool's call session (shared with the Apps view). */

const HOST_INFO = { name: 'Switchboard', version: '0.1.0' };
const PARTIAL_GAP_MS = 250;
/** Calls and reads an app may have in flight at once (a burst beyond is refused, not queued). */
const MAX_IN_FLIGHT = 8;
/** How long the sandbox and the app have to finish the handshake before the host says so. */
const START_TIMEOUT_MS = 20_000;
const PERMISSION_LABEL: Record<AppPermission, string> = { camera: 'camera', microphone: 'microphone', geolocation: 'location', clipboardWrite: 'writing to the clipboard' };

type Phase = { state: 'loading' } | { state: 'ready' } | { state: 'error'; message: string } | { state: 'stopped'; message: string };
type PendingLink = { verdict: Extract<LinkVerdict, { ok: true }>; resolve(open: boolean): void };

function readCssVariable(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name);
}

export function AppHost(props: AppHostProps) {
  const { tool } = props;
  const api = useApi();
  const uri = tool.ui?.resourceUri;
  const target = useMemo(() => ({ serverId: tool.serverId, uri: uri ?? '', tool: tool.name }), [tool.serverId, uri, tool.name]);
  // An answer given before (this page's life) stands: the instance opens with what was granted.
  const [grant, setGrant] = useState<AppPermission[]>(() => appInstances(api).consent(target) ?? []);
  const [consentDecided, setConsentDecided] = useState(() => appInstances(api).consent(target) !== undefined);
  const decide = (granted: AppPermission[]) => {
    appInstances(api).remember(target, granted);
    setConsentDecided(true);
    setGrant(granted);
  };
  const [instance, setInstance] = useState<AppInstance | null>(null);
  const [phase, setPhase] = useState<Phase>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);

  // Open (or claim the preloaded) instance; close it when it is no longer shown.
  const grantKey = grant.join(',');
  useEffect(() => {
    if (!uri) {
      setPhase({ state: 'error', message: 'This tool declares no UI resource (_meta.ui.resourceUri).' });
      return;
    }
    let live = true;
    let opened: AppInstance | null = null;
    setInstance(null);
    setPhase({ state: 'loading' });
    appInstances(api)
      .claim(target, grant)
      .then(
        (value) => {
          opened = value;
          if (!live) return appInstances(api).close(value.instanceId);
          setInstance(value);
        },
        (error: Error) => live && setPhase({ state: 'error', message: `Could not open the app's resource ${uri.slice(0, 300)}: ${error.message}` }),
      );
    return () => {
      live = false;
      if (opened) appInstances(api).close(opened.instanceId);
    };
    // grantKey stands for grant
  }, [api, target, grantKey, attempt]);

  const stop = (message: string) => {
    setPhase({ state: 'stopped', message });
    setInstance((current) => {
      if (current) appInstances(api).close(current.instanceId);
      return null;
    });
  };

  const asks = instance?.permissions ?? [];
  const needsConsent = asks.length > 0 && !consentDecided && grant.length === 0;

  return (
    <div className={classes.root} data-testid="app-host" data-state={phase.state} data-instance={instance?.instanceId ?? ''}>
      {phase.state === 'loading' && !instance && (
        <Text className={classes.status} data-testid="app-loading">
          Opening the app: reading {uri ? <span className="mono">{uri.slice(0, 200)}</span> : 'its resource'} from {tool.serverName.slice(0, 80)}…
        </Text>
      )}
      {(phase.state === 'error' || phase.state === 'stopped') && (
        <Alert color={phase.state === 'error' ? 'red' : 'orange'} variant="light" p="xs" title={phase.state === 'error' ? 'The app could not run' : 'The app was stopped'}>
          <Text size="sm" data-testid="app-error">
            <SafeText text={phase.message} clip={2000} />
          </Text>
          <Button size="compact-xs" variant="light" mt={6} onClick={() => setAttempt((n) => n + 1)} data-testid="app-restart">
            Start it again
          </Button>
        </Alert>
      )}
      {needsConsent && instance && (
        <PermissionConsent
          asks={asks}
          onAllow={() => decide([...asks])} // the frame's `allow` applies on load: a new instance with the grant
          onDeny={() => decide([])}
        />
      )}
      {instance && asks.length > 0 && consentDecided && grant.length === 0 && (
        <Group gap={6} data-testid="app-permissions-denied">
          <Text size="xs" c="dimmed">
            The app asked for {asks.map((p) => PERMISSION_LABEL[p]).join(', ')}: denied, it runs without.
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => setConsentDecided(false)} data-testid="app-permissions-ask">
            Ask again
          </Button>
        </Group>
      )}
      {instance && phase.state !== 'error' && phase.state !== 'stopped' && (
        <RunningApp key={instance.instanceId} instance={instance} tool={tool} props={props} onReady={() => setPhase({ state: 'ready' })} onError={(message) => setPhase({ state: 'error', message })} onStop={stop} />
      )}
    </div>
  );
}

function PermissionConsent({ asks, onAllow, onDeny }: { asks: AppPermission[]; onAllow(): void; onDeny(): void }) {
  return (
    <div className={classes.consent} data-testid="app-consent" data-kind="permissions" role="alertdialog" aria-label="The app asks for permissions">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm">
          This app asks for: <b>{asks.map((p) => PERMISSION_LABEL[p]).join(', ')}</b>. It has none of them until you allow it (the app reloads with them).
        </Text>
        <Group gap={6}>
          <Button size="compact-sm" variant="default" onClick={onDeny} data-testid="app-consent-deny">
            Deny
          </Button>
          <Button size="compact-sm" color="yellow" onClick={onAllow} data-testid="app-consent-allow">
            Allow
          </Button>
        </Group>
      </Group>
    </div>
  );
}

function RunningApp({
  instance,
  tool,
  props,
  onReady,
  onError,
  onStop,
}: {
  instance: AppInstance;
  tool: ToolEntry;
  props: AppHostProps;
  onReady(): void;
  onError(message: string): void;
  onStop(message: string): void;
}) {
  const api = useApi();
  const scheme = useComputedColorScheme('light');
  const [themeOverride, setThemeOverride] = useState<'light' | 'dark' | null>(null);
  const theme = themeOverride ?? scheme;
  const [displayMode, setDisplayMode] = useState<McpUiDisplayMode>('inline');
  const [size, setSize] = useState<SizePreset>('full');
  const [height, setHeight] = useState<number>(FRAME_HEIGHT.initial);
  const [width, setWidth] = useState(0);
  const [stageSize, setStageSize] = useState<{ width: number; height: number } | null>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const [transport, setTransport] = useState<BridgeTransport | null>(null);
  const [sentContext, setSentContext] = useState<McpUiHostContext | null>(null);
  const [model, setModel] = useState<ModelEntry[]>([]);
  const [link, setLink] = useState<PendingLink | null>(null);
  const [callRefusals, setCallRefusals] = useState<string[]>([]);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const bridgeRef = useRef<AppBridge | null>(null);
  const linkRef = useRef<PendingLink | null>(null);
  const modelId = useRef(0);
  // What an app can send often (size changes, messages for the model) reaches React once a frame.
  const pendingHeight = useRef<number | null>(null);
  const pendingModel = useRef<ModelEntry[]>([]);
  const frameTick = useRef<number | null>(null);
  const scheduleTick = () => {
    frameTick.current ??= requestAnimationFrame(() => {
      frameTick.current = null;
      if (pendingHeight.current !== null) setHeight(pendingHeight.current);
      pendingHeight.current = null;
      const entries = pendingModel.current;
      pendingModel.current = [];
      if (entries.length) setModel((list) => entries.reduce((acc, e) => pushNewest(acc, e, MODEL_PANEL_MAX), list));
    });
  };
  useEffect(
    () => () => {
      if (frameTick.current !== null) cancelAnimationFrame(frameTick.current);
    },
    [],
  );
  const callbacks = useRef({ onReady, onError, onStop });
  callbacks.current = { onReady, onError, onStop };

  const preset = sizePreset(size);
  const context = useMemo(() => {
    const container =
      displayMode === 'fullscreen' && stageSize
        ? { width: stageSize.width, height: stageSize.height }
        : preset.width !== undefined
          ? { width: preset.width, height: preset.height }
          : { width: width || 600, maxHeight: FRAME_HEIGHT.max };
    return buildHostContext({
      theme,
      variables: styleVariables(theme, readCssVariable),
      displayMode,
      container,
      locale: navigator.language || 'en',
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
      platform: carrierKind() === 'electron' ? 'desktop' : 'web',
      tool: { name: tool.originalName, description: tool.description, inputSchema: tool.inputSchema },
    });
    // theme: the variables are read for it (our root changes scheme with it, a frame later at worst)
  }, [theme, scheme, displayMode, preset.width, preset.height, width, stageSize, tool]);
  const contextRef = useRef(context);
  contextRef.current = context;

  // The bridge, its transport and every handler: one per instance.
  useEffect(() => {
    const serverId = instance.serverId;
    const instanceId = instance.instanceId;
    const t = new BridgeTransport({
      host: window as unknown as ConstructorParameters<typeof BridgeTransport>[0]['host'],
      frame: () => frameRef.current?.contentWindow ?? null,
      sandboxOrigin: instance.sandboxOrigin,
      sink: {
        trace: (messages) => void api.appTrace({ instanceId, messages }).catch(() => undefined),
        log: (entries) => void api.appLog({ instanceId, entries }).catch(() => undefined),
      },
      onFlooded: (dropped) => callbacks.current.onStop(`The app flooded the bridge with ${dropped.toLocaleString()} messages over its budget (1,000 at once, 300 a second), so Switchboard stopped it. The dropped messages are summarised in Traffic and Logs.`),
    });
    const bridge = new AppBridge(null, HOST_INFO, hostCapabilities(instance), { hostContext: contextRef.current });
    bridgeRef.current = bridge;
    const refuse = (method: string, reason: string) => t.refuse('in', method, reason);
    let inFlight = 0;
    /** Runs a call or read for the app, at most MAX_IN_FLIGHT at once. */
    const limited = async <T,>(method: string, work: () => Promise<T>): Promise<T> => {
      if (inFlight >= MAX_IN_FLIGHT) {
        const reason = `Refused ${method}: the app already has ${MAX_IN_FLIGHT} calls and reads waiting for the server.`;
        refuse(method, reason);
        throw new Error(reason);
      }
      inFlight++;
      try {
        return await work();
      } finally {
        inFlight--;
      }
    };

    let sandboxReady = false;
    let initialized = false;
    const startTimer = setTimeout(() => {
      if (initialized) return;
      callbacks.current.onError(
        sandboxReady
          ? `The app did not finish its handshake within ${START_TIMEOUT_MS / 1000} s: the sandbox loaded it, but it never sent ui/initialize and ui/notifications/initialized (see the Devtools messages and Logs).`
          : `The sandbox page did not answer within ${START_TIMEOUT_MS / 1000} s (no ui/notifications/sandbox-proxy-ready from ${instance.sandboxOrigin}): the frame was blocked or did not load.`,
      );
    }, START_TIMEOUT_MS);
    bridge.onsandboxready = () => {
      if (sandboxReady) return; // the resource goes once (the proxy ignores a second anyway)
      sandboxReady = true;
      void bridge.sendSandboxResourceReady({ html: instance.html, permissions: permissionsObject(instance.granted) });
    };
    bridge.oninitialized = () => {
      initialized = true;
      clearTimeout(startTimer);
      setReady(true);
      setSentContext(contextRef.current);
      bridge.setHostContext(contextRef.current);
      callbacks.current.onReady();
    };
    bridge.onsizechange = ({ height: h }) => {
      const next = clampFrameHeight(h);
      if (next === null) return;
      pendingHeight.current = next;
      scheduleTick();
    };
    bridge.oncalltool = (params) =>
      limited('tools/call', async () => {
        try {
          const value = await api.callTool({ tool: params.name, serverId, args: (params.arguments ?? {}) as Record<string, unknown>, fromApp: { instanceId } });
          return value.result as Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>;
        } catch (error) {
          const reason = `Refused the app's call of ${String(params.name).slice(0, 120)}: ${(error as Error).message}`;
          refuse('tools/call', reason);
          setCallRefusals((list) => pushNewest(list, reason, 5));
          throw error;
        }
      });
    bridge.onreadresource = ({ uri }) => limited('resources/read', async () => (await api.readResource({ serverId, uri })).result as Awaited<ReturnType<NonNullable<AppBridge['onreadresource']>>>);
    bridge.onlistresources = () => limited('resources/list', async () => ({ resources: mcpResources(await api.listResources({ serverId }), serverId).resources }));
    bridge.onlistresourcetemplates = () => limited('resources/templates/list', async () => ({ resourceTemplates: mcpResources(await api.listResources({ serverId }), serverId).resourceTemplates }));
    bridge.onopenlink = async ({ url }) => {
      const verdict = checkAppLink(url);
      if (!verdict.ok) {
        refuse('ui/open-link', `${verdict.reason} (${String(url).slice(0, 200)})`);
        return { isError: true };
      }
      if (linkRef.current) {
        refuse('ui/open-link', 'Refused: another link from this app is waiting for an answer.');
        return { isError: true };
      }
      const open = await new Promise<boolean>((resolve) => {
        const pending = { verdict, resolve };
        linkRef.current = pending;
        setLink(pending);
      });
      linkRef.current = null;
      setLink(null);
      if (!open) {
        refuse('ui/open-link', `The person did not open ${verdict.href.slice(0, 300)}.`);
        return { isError: true };
      }
      try {
        if (carrierKind() === 'electron') {
          const { opened } = await api.openExternal({ url: verdict.href });
          if (!opened) throw new Error('the system browser did not open it');
        } else {
          window.open(verdict.href, '_blank', 'noopener,noreferrer');
        }
        return {};
      } catch (error) {
        refuse('ui/open-link', `Could not open ${verdict.href.slice(0, 300)}: ${(error as Error).message}`);
        return { isError: true };
      }
    };
    const toModel = (kind: ModelEntry['kind'], params: unknown) => {
      pendingModel.current = pushNewest(pendingModel.current, { id: ++modelId.current, at: Date.now(), kind, params }, MODEL_PANEL_MAX);
      scheduleTick();
    };
    bridge.onmessage = async (params) => {
      toModel('message', params);
      return {};
    };
    bridge.onupdatemodelcontext = async (params) => {
      toModel('context', params);
      return {};
    };
    bridge.onloggingmessage = (params) => t.log(logEntryFromApp(params, Date.now()));
    bridge.onrequestdisplaymode = async ({ mode }) => {
      setDisplayMode(mode);
      return { mode };
    };
    bridge.onrequestteardown = () => {
      t.refuse('in', 'ui/notifications/request-teardown', 'The app asked to be closed: Switchboard closed it.', false);
      callbacks.current.onStop('The app asked to be closed (ui/notifications/request-teardown).');
    };
    bridge.ondownloadfile = async () => {
      refuse('ui/download-file', 'Refused: Switchboard does not save files for apps (ui/download-file is not supported).');
      return { isError: true };
    };
    bridge.onerror = (error) => t.log({ ts: Date.now(), level: 'error', kind: 'bridge', text: `The bridge failed to handle a message: ${error.message.slice(0, 2000)}` });

    setTransport(t);
    let live = true;
    bridge.connect(t).then(
      () => live && setSrc(instance.sandboxUrl),
      (error: Error) => live && callbacks.current.onError(`Could not start the bridge: ${error.message}`),
    );
    return () => {
      live = false;
      clearTimeout(startTimer);
      bridgeRef.current = null;
      linkRef.current?.resolve(false);
      // The app is told (best effort) before its frame goes; then everything is dropped.
      void bridge
        .teardownResource({}, { timeout: 500 })
        .catch(() => undefined)
        .finally(() => void bridge.close().catch(() => undefined));
    };
  }, [api, instance]);

  // Tool input (partial while the form is edited), result and cancellation, once the app is ready.
  const delivered = useRef<{ input?: object; partial?: object; result?: object; cancelled: boolean }>({ cancelled: false });
  const partial = useMemo(
    () =>
      throttleLatest<Record<string, unknown>>(PARTIAL_GAP_MS, (args) => void bridgeRef.current?.sendToolInputPartial({ arguments: args }).catch(() => undefined), {
        now: () => Date.now(),
        set: (fn, ms) => setTimeout(fn, ms),
        clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      }),
    [],
  );
  useEffect(() => () => partial.cancel(), [partial]);
  const { input, inputPartial, result, cancelled } = props;
  useEffect(() => {
    const bridge = bridgeRef.current;
    if (!ready || !bridge) return;
    const d = delivered.current;
    if (input && inputPartial && d.partial !== input && d.input !== input) {
      d.partial = input;
      partial.push(input);
    } else if (input && !inputPartial && d.input !== input) {
      partial.cancel();
      d.input = input;
      void bridge.sendToolInput({ arguments: input }).catch(() => undefined);
    }
    if (result && d.result !== result) {
      d.result = result;
      void bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]).catch(() => undefined);
    }
    if (cancelled && !d.cancelled) void bridge.sendToolCancelled({ reason: 'The person cancelled the call in Switchboard.' }).catch(() => undefined);
    d.cancelled = !!cancelled;
  }, [ready, input, inputPartial, result, cancelled, partial]);

  // Host context changes (theme, size, display mode) reach the app as host-context-changed.
  useEffect(() => {
    const bridge = bridgeRef.current;
    if (!ready || !bridge) return;
    bridge.setHostContext(context);
    setSentContext(context);
  }, [ready, context]);

  // The container's width (inline) and the stage's size (fullscreen).
  useEffect(() => {
    const el = boxRef.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      setWidth(Math.round(el.clientWidth));
      setStageSize({ width: Math.round(el.clientWidth), height: Math.round(el.clientHeight) });
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // Esc leaves fullscreen and picture-in-picture.
  useEffect(() => {
    if (displayMode === 'inline') return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setDisplayMode('inline');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [displayMode]);

  // The strip stays reachable in fullscreen (inside the overlay, under the frame); elsewhere it is under the frame in the page.
  const devtools = (
    <Devtools
      instance={instance}
      transport={transport}
      hostContext={sentContext}
      theme={theme}
      displayMode={displayMode}
      size={size}
      canResendInput={ready && !!(delivered.current.input ?? props.input)}
      canResendResult={ready && !!(delivered.current.result ?? props.result)}
      onResendInput={() => {
        const args = delivered.current.input ?? props.input;
        if (args) void bridgeRef.current?.sendToolInput({ arguments: args as Record<string, unknown> }).catch(() => undefined);
      }}
      onResendResult={() => {
        const value = delivered.current.result ?? props.result;
        if (value) void bridgeRef.current?.sendToolResult(value as Parameters<AppBridge['sendToolResult']>[0]).catch(() => undefined);
      }}
      onTheme={() => setThemeOverride(theme === 'dark' ? 'light' : 'dark')}
      onDisplayMode={setDisplayMode}
      onSize={setSize}
    />
  );
  const allow = buildAllowAttribute(permissionsObject(instance.granted));
  const frameHeight = displayMode === 'fullscreen' ? '100%' : displayMode === 'pip' ? Math.min(height, 240) : (preset.height ?? height);
  const frameWidth = displayMode === 'inline' && preset.width !== undefined ? preset.width : undefined;

  return (
    <>
      <div className={classes.stage} data-mode={displayMode} data-testid="app-stage">
        <div className={classes.stageBar}>
          <Text size="xs" fw={600}>
            <SafeText text={tool.name} clip={80} inline /> · {displayMode === 'pip' ? 'picture-in-picture' : 'fullscreen'}
          </Text>
          <Group gap={4}>
            <Text size="xs" c="dimmed">
              Esc returns
            </Text>
            <CloseButton size="sm" aria-label="Back to inline" onClick={() => setDisplayMode('inline')} data-testid="app-inline" />
          </Group>
        </div>
        <div ref={boxRef} className={classes.frameBox} data-border={instance.prefersBorder === false ? 'false' : 'true'} style={{ height: frameHeight, width: frameWidth }}>
          {src && (
            <iframe
              ref={frameRef}
              className={classes.frame}
              data-testid="app-frame"
              title={`MCP App: ${tool.name.slice(0, 100)}`}
              src={src}
              sandbox="allow-scripts allow-same-origin allow-forms"
              allow={allow}
              referrerPolicy="no-referrer"
            />
          )}
        </div>
        {displayMode === 'fullscreen' && devtools}
      </div>
      {!ready && src && (
        <Text className={classes.status} data-testid="app-starting">
          Waiting for the app to initialize (ui/initialize)…
        </Text>
      )}
      {callRefusals.length > 0 && (
        <Alert color="orange" variant="light" p="xs" data-testid="app-call-refused">
          {callRefusals.map((r, i) => (
            <Text key={i} size="xs">
              <SafeText text={r} clip={600} inline />
            </Text>
          ))}
        </Alert>
      )}
      {model.length > 0 && <ModelPanel entries={model} onClear={() => setModel([])} />}
      <LinkConsent pending={link} />
      {displayMode !== 'fullscreen' && devtools}
    </>
  );
}

function LinkConsent({ pending }: { pending: PendingLink | null }) {
  const v = pending?.verdict;
  return (
    <Modal opened={!!pending} onClose={() => pending?.resolve(false)} title="The app asks to open a link" centered size="lg" data-testid="app-consent-modal">
      {v && (
        <Stack gap="sm" data-testid="app-consent" data-kind="open-link">
          <Text size="sm">It would open in {carrierKind() === 'electron' ? 'your browser' : 'a new tab'}, outside Switchboard. It goes to:</Text>
          <div className={classes.linkHost} data-testid="app-consent-host">
            {v.host}
          </div>
          <div className={classes.linkUrl} data-testid="app-consent-url">
            <SafeText text={v.href} clip={4000} inline />
          </div>
          {v.scheme === 'http://' && (
            <Text size="xs" c="orange">
              This link is not encrypted (http:).
            </Text>
          )}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => pending.resolve(false)} data-testid="app-consent-deny">
              Don’t open
            </Button>
            <Button onClick={() => pending.resolve(true)} data-testid="app-consent-allow">
              Open {v.host.slice(0, 60)}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function ModelPanel({ entries, onClear }: { entries: ModelEntry[]; onClear(): void }) {
  return (
    <div className={classes.modelPanel} data-testid="app-model-panel">
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" fw={600}>
          For the model
        </Text>
        <Button size="compact-xs" variant="subtle" color="gray" onClick={onClear}>
          Clear
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        Switchboard has no model: what the app asks to send to one is shown here and goes nowhere.
      </Text>
      {entries.map((e) => (
        <div key={e.id} className={classes.modelEntry} data-testid="app-model-entry" data-kind={e.kind}>
          <Group gap={6} mb={2}>
            <Badge size="xs" variant="light" color={e.kind === 'message' ? 'indigo' : 'grape'}>
              {e.kind === 'message' ? 'ui/message' : 'ui/update-model-context'}
            </Badge>
            <Text size="xs" c="dimmed">
              {new Date(e.at).toLocaleTimeString()}
            </Text>
          </Group>
          <ModelContent params={e.params} />
        </div>
      ))}
    </div>
  );
}

/** Text blocks read as text; anything else as a tree. */
function ModelContent({ params }: { params: unknown }): ReactNode {
  const p = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  const content = Array.isArray(p.content) ? p.content : [];
  const texts = content.filter((c): c is { type: 'text'; text: string } => typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string');
  if (texts.length === content.length && texts.length > 0 && p.structuredContent === undefined) {
    return (
      <Stack gap={2}>
        {texts.slice(0, 20).map((t, i) => (
          <Text key={i} size="sm" component="div">
            <SafeText text={t.text} clip={4000} />
          </Text>
        ))}
      </Stack>
    );
  }
  return <JsonTree value={params} expandDepth={2} />;
}
