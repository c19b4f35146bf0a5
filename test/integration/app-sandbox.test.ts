/**
 * MCP Apps: browser mode's sandbox origin over real HTTP (main/adapters/web/sandbox-host.ts):
 * a registered page is served with the exact CSP the core built (plus the framing policy), the
 * proxy script is served as JavaScript, unknown ids and other paths are 404, other methods 405,
 * a foreign Host is 403 (DNS rebinding), an unregistered page is gone. Then the built browser
 * mode (out/main/web.js, `npm run web`): its renderer's CSP may frame exactly the sandbox
 * origin, and that origin is a live sandbox host on another port.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_PROXY_SCRIPT, sandboxPageHtml } from '../../main/adapters/shared/app-sandbox';
import { startSandboxHost, type WebSandboxHost } from '../../main/adapters/web/sandbox-host';

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; raw: string[]; body: string };

/** A raw HTTP request, so Host is exactly what the test says. */
function send(port: number, path: string, options: { method?: string; host?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: res.rawHeaders, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Every value of one header, in order (rawHeaders keeps repeated headers apart). */
function all(answer: Answer, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < answer.raw.length; i += 2) if (answer.raw[i]!.toLowerCase() === name) values.push(answer.raw[i + 1]!);
  return values;
}

const CSP = "default-src 'none'; script-src 'unsafe-inline' http://127.0.0.1:1/sandbox-proxy.js; connect-src https://api.example.com; frame-src 'none'";
const RENDERER = 'http://127.0.0.1:4567';

describe('the sandbox origin', () => {
  let sandbox: WebSandboxHost;
  const id = 'AbCdEf0123456789abcdef0123456789';

  beforeAll(async () => {
    sandbox = await startSandboxHost();
    sandbox.setHostOrigins([RENDERER, 'http://localhost:4567']);
  });
  afterAll(() => sandbox.close());

  it('is another loopback origin, and register gives the page URL on it', () => {
    expect(sandbox.origin).toBe(`http://localhost:${sandbox.port}`);
    expect(sandbox.register({ instanceId: id, csp: CSP, allow: ['camera', 'clipboard-write'] })).toBe(`${sandbox.origin}/sandbox/${id}`);
  });

  it('serves a registered page with the exact CSP, a framing policy for the renderer only, and no caching', async () => {
    const page = await send(sandbox.port, `/sandbox/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(all(page, 'content-security-policy')).toEqual([CSP, `frame-ancestors ${RENDERER} http://localhost:4567`]);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toBe(sandboxPageHtml([RENDERER, 'http://localhost:4567'], ['camera', 'clipboard-write']));
    expect(page.body).toContain('<script src="/sandbox-proxy.js"></script>');
    expect(page.body).toContain(`<meta name="switchboard-host-origin" content="${RENDERER} http://localhost:4567">`);
    expect(page.body).toContain('<meta name="switchboard-allow" content="camera; clipboard-write">');
    // No inline script or style: the page lives under the app's policy.
    expect(page.body).not.toMatch(/<script>|<style|style=/);
  });

  it('answers HEAD like GET, without a body', async () => {
    const head = await send(sandbox.port, `/sandbox/${id}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(all(head, 'content-security-policy')[0]).toBe(CSP);
    expect(head.body).toBe('');
  });

  it('serves the proxy script as JavaScript, nosniff, same-origin only', async () => {
    const script = await send(sandbox.port, '/sandbox-proxy.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(script.body).toBe(SANDBOX_PROXY_SCRIPT);
  });

  it('404s unknown ids and every other path, 405s other methods', async () => {
    for (const path of ['/sandbox/nope', '/sandbox/', '/', `/sandbox/${id}/x`, `/sandbox/..%2F${id}`, '/index.html', `/${id}`]) {
      expect((await send(sandbox.port, path)).status, path).toBe(404);
    }
    const post = await send(sandbox.port, `/sandbox/${id}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });

  it('refuses a foreign Host (DNS rebinding) and accepts the loopback names with its port', async () => {
    for (const host of ['evil.example', `evil.example:${sandbox.port}`, '127.0.0.1:1', 'localhost']) {
      const answer = await send(sandbox.port, `/sandbox/${id}`, { host });
      expect(answer.status, host).toBe(403);
      expect(answer.body).not.toContain('switchboard-host-origin');
    }
    for (const host of [`localhost:${sandbox.port}`, `[::1]:${sandbox.port}`]) expect((await send(sandbox.port, `/sandbox/${id}`, { host })).status, host).toBe(200);
  });

  it('stops serving a page once it is unregistered (other pages stay)', async () => {
    const other = 'other-instance-0123456789abcdef';
    sandbox.register({ instanceId: other, csp: CSP, allow: [] });
    sandbox.unregister(id);
    sandbox.unregister('never-registered');
    expect((await send(sandbox.port, `/sandbox/${id}`)).status).toBe(404);
    expect((await send(sandbox.port, `/sandbox/${other}`)).status).toBe(200);
  });

  it('refuses to register what it could not serve safely', () => {
    expect(() => sandbox.register({ instanceId: '../x', csp: CSP, allow: [] })).toThrow(/id/);
    expect(() => sandbox.register({ instanceId: 'x', csp: `${CSP}\r\nset-cookie: a=b`, allow: [] })).toThrow(/one line/);
    expect(() => sandbox.register({ instanceId: 'x', csp: CSP, allow: ['usb'] })).toThrow(/usb/);
  });

  it('serves no page before it knows the renderer origin', async () => {
    const lonely = await startSandboxHost();
    try {
      lonely.register({ instanceId: 'early', csp: CSP, allow: [] });
      expect((await send(lonely.port, '/sandbox/early')).status).toBe(404);
      lonely.setHostOrigins([RENDERER]);
      expect((await send(lonely.port, '/sandbox/early')).status).toBe(200);
    } finally {
      await lonely.close();
    }
  });
});

describe('built browser mode', () => {
  const ROOT = join(import.meta.dirname, '../..');
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-sandbox-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lets its renderer frame the sandbox origin and nothing else, and serves the sandbox there', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'out/main/web.js'), '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          const match = /Open: (http:\/\/\S+)/.exec(out);
          if (match) resolve(new URL(match[1]!));
        });
        child.once('exit', (code) => reject(new Error(`browser mode exited (${code}): ${out}`)));
      });
      const page = await send(Number(url.port), '/', { headers: { 'x-switchboard-token': url.searchParams.get('token')! } });
      expect(page.status).toBe(200);
      const frameSrc = String(page.headers['content-security-policy'])
        .split(';')
        .map((d) => d.trim())
        .filter((d) => d.startsWith('frame-src '));
      expect(frameSrc).toHaveLength(1);
      const sandboxOrigin = new URL(frameSrc[0]!.slice('frame-src '.length));
      expect(frameSrc[0]).toBe(`frame-src http://localhost:${sandboxOrigin.port}`);
      expect(sandboxOrigin.port).not.toBe(url.port);
      const script = await send(Number(sandboxOrigin.port), '/sandbox-proxy.js');
      expect(script.status).toBe(200);
      expect(script.body).toBe(SANDBOX_PROXY_SCRIPT);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 30_000);
});
