/**
 * #18 item 9: the built CLI (out/main/cli.js) against a real server whose tool names,
 * descriptions, results and errors carry ESC sequences, NUL, C1 CSI, CR and U+202E: human
 * output shows them as visible escapes, never raw; `--json` output stays exact.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalSafe } from '../../main/adapters/cli/terminal';
import { HOSTILE_DESCRIPTION, HOSTILE_NAME, HOSTILE_TEXT, auditStdioCommand } from '../fixtures/audit/strings';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'out/main/cli.js');
/** Anything that can drive a terminal or reorder what it shows. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let dir: string;
let config: string;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-cli-term-'));
  config = join(dir, 'servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { local: auditStdioCommand(['--hostile-strings']) } }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CLI output and hostile server strings', () => {
  it('escapes tool names and descriptions in `tools`, and keeps them exact with --json', async () => {
    const human = await cli(['tools', '--config', config]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(RAW_CONTROL);
    expect(human.stdout).toContain(terminalSafe(`local__${HOSTILE_NAME}`));
    expect(human.stdout).toContain('\\x1b[2J\\x1b[31mred\\x00nul\\u202eesrever');
    expect(human.stdout).toContain('\\x1b]8;;https://evil.example\\x07click');

    const json = await cli(['tools', '--config', config, '--json']);
    expect(json.code).toBe(0);
    const tool = (JSON.parse(json.stdout) as { tools: { name: string; description: string }[] }).tools.find((t) => t.name === `local__${HOSTILE_NAME}`);
    expect(tool?.description).toBe(HOSTILE_DESCRIPTION);
  });

  it('escapes a result in `call`, and keeps it exact with --json', async () => {
    const human = await cli(['call', 'hostile_result', '--config', config]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(RAW_CONTROL);
    expect(human.stdout).toContain('result \\x1b[2J\\x1b[H\\x1b[41mwiped\\x1b[0m\\x0d\\x00 \\u202e) back \\x9b31m c1');

    const json = await cli(['call', 'hostile_result', '--config', config, '--json']);
    expect((JSON.parse(json.stdout) as { result: { content: { text: string }[] } }).result.content[0]!.text).toBe(HOSTILE_TEXT);
  });

  it('escapes a server error on stderr', async () => {
    const failed = await cli(['call', 'hostile_error', '--config', config]);
    expect(failed.code).toBe(5);
    expect(failed.stderr).toContain('\\x1b[2J');
    expect(failed.stderr).not.toMatch(RAW_CONTROL);
  });
});
