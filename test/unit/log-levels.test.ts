/**
 * Logs: MCP's eight syslog levels travel and filter as themselves; a server's log notification
 * keeps its level; what a server caused is its line (`protocol`), not Switchboard's; the level
 * picker only for servers that declared logging.
 */
import { describe, expect, it } from 'vitest';
import { LogLevel, type Envelope, type LogLine } from '../../contract';
import { EventHub } from '../../main/core/events';
import { LogBus } from '../../main/core/logs/log-bus';
import { logServerFailures, writeServerError, writeServerLog } from '../../main/core/logs/server-lines';
import { levelPickerFor } from '../../renderer/src/features/logs/level-picker';
import { FilteredLines, LEVELS, type StoredLine } from '../../renderer/src/features/logs/log-filter';

const bus = () => new LogBus(new EventHub());

describe('the log bus history', () => {
  it('holds the newest `keep` lines, oldest first, however many were written', () => {
    const logs = new LogBus(new EventHub(), { keep: 5 });
    for (let n = 1; n <= 23; n++) {
      logs.app('info', `line ${n}`);
      const texts = logs.history().map((l) => l.text);
      expect(texts).toEqual(Array.from({ length: Math.min(5, n) }, (_, i) => `line ${Math.max(1, n - 4) + i}`));
    }
  });
});

describe('server log lines', () => {
  it('keeps each of the eight levels as sent, and says so when a level is unknown', () => {
    const logs = bus();
    for (const level of LogLevel.options) writeServerLog(logs, 's', level, 'lg', `${level} line`);
    writeServerLog(logs, 's', 'panic', undefined, { a: 1 });
    const lines = logs.history();
    expect(lines.slice(0, 8).map((l) => l.level)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
    expect(lines[5]).toMatchObject({ serverId: 's', source: 'server', text: '[lg] critical line' });
    expect(lines[8]).toMatchObject({ level: 'info', text: '[level "panic"] {"a":1}' });
    expect(LogLevel.safeParse('critical').success).toBe(true);
  });

  it('attributes a server-caused failure to that server, and leaves a cancel or a refusal of ours out', async () => {
    const logs = bus();
    const answers: Record<string, Envelope> = {
      readResource: { ok: false, error: { code: 'failed', message: 'every: resources/read failed: Unknown resource', detail: { kind: 'rpc', rpcCode: -32602 } } },
      cancelCall: { ok: false, error: { code: 'failed', message: 'cancelled', detail: { kind: 'cancelled' } } },
      getPrompt: { ok: false, error: { code: 'failed', message: 'not declared', detail: { kind: 'unsupported' } } },
      connectServer: { ok: false, error: { code: 'failed', message: 'every: timed out', detail: { kind: 'timeout' } } },
      listTools: { ok: true, result: [] },
    };
    const dispatch = logServerFailures(async (method) => answers[method]!, logs);
    await dispatch('readResource', { serverId: 'every', uri: 'demo://x' });
    await dispatch('cancelCall', { serverId: 'every' });
    await dispatch('getPrompt', { serverId: 'every' });
    await dispatch('connectServer', { id: 'every' });
    await dispatch('listTools', {});
    writeServerError(logs, 'every', 'every: prompts/list failed: Method not found');
    expect(logs.history().map((l) => [l.source, l.serverId, l.level, l.text])).toEqual([
      ['protocol', 'every', 'error', 'every: resources/read failed: Unknown resource'],
      ['protocol', 'every', 'error', 'every: timed out'],
      ['protocol', 'every', 'error', 'every: prompts/list failed: Method not found'],
    ]);
  });
});

describe('the level filter', () => {
  const store = (levels: LogLine['level'][]) =>
    ({ lines: levels.map((level, seq) => ({ ts: seq, source: 'server', level, text: level, seq, lower: level }) satisfies StoredLine) });

  it('filters on all eight levels in severity order', () => {
    const all = store([...LEVELS]);
    const shown = (minLevel: LogLine['level']) => new FilteredLines().update(all, { minLevel, sources: ['server'], text: '' }).map((l) => l.level);
    expect(shown('debug')).toHaveLength(8);
    expect(shown('notice')).toEqual(['notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
    expect(shown('critical')).toEqual(['critical', 'alert', 'emergency']);
    expect(shown('alert')).toEqual(['alert', 'emergency']);
    expect(shown('emergency')).toEqual(['emergency']);
  });
});

describe('the level picker', () => {
  it('only for a connected legacy-era server that declared logging; the others say why', () => {
    expect(levelPickerFor({ state: 'connected', era: 'legacy', serverCapabilities: ['logging', 'tools'] }).settable).toBe(true);
    const memory = levelPickerFor({ state: 'connected', era: 'legacy', serverCapabilities: ['tools'] });
    expect(memory.settable).toBe(false);
    expect(memory.reason).toContain('did not declare the logging capability');
    expect(levelPickerFor({ state: 'connected', era: 'modern', serverCapabilities: ['logging'] }).reason).toContain('not in this era');
    expect(levelPickerFor({ state: 'disconnected' }).settable).toBe(false);
  });
});
