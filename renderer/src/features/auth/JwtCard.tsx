/**
 * The access token decoded, when it is a JWT: header and claims as a tree (the signature is never
 * sent to the renderer), and the claims that matter to a sign-in picked out — the times as dates.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { Badge, Group, Text } from '@mantine/core';
import type { AuthStatus } from '../../../../contract';
import { JsonTree } from '../../components/JsonTree';
import { visibleText } from '../../components/SafeText';
import classes from './auth.module.css';
import { Kv, Section, type Row } from './parts';
import { relativeTime } from './steps';

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : safeStringify(v));

function timeClaim(v: unknown, now: number): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return str(v);
  const ms = v * 1000;
  return `${new Date(ms).toLocaleString()} (${relativeTime(ms - now)}) · ${v}`;
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((x) => str(x) ?? '');
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  return v === undefined ? [] : [str(v) ?? ''];
}

function Chips({ values }: { values: string[] }) {
  return (
    <Group gap={4}>
      {values.slice(0, 50).map((s, i) => (
        <Badge key={`${s}:${i}`} size="xs" variant="outline" tt="none">
          {visibleText(s, 120)}
        </Badge>
      ))}
    </Group>
  );
}

export function JwtCard({ status }: { status?: AuthStatus }) {
  if (!status?.applies) return null;
  const jwt = status.jwt;
  if (!jwt) {
    return (
      <div className={classes.card} data-testid="auth-jwt" data-jwt="false">
        <Text fw={600} size="sm" mb={4}>
          Access token
        </Text>
        <Text size="xs" c="dimmed">
          {status.signedIn ? 'The access token is opaque (not a JWT): there is nothing to decode. Only the authorization server knows what it stands for.' : 'Not signed in: no token.'}
        </Text>
      </div>
    );
  }
  const p = jwt.payload;
  const now = Date.now();
  const scopes = list(p.scope ?? p.scp);
  const rows: Row[] = [
    ['exp (expires)', timeClaim(p.exp, now), 'auth-jwt-exp'],
    ['iat (issued)', timeClaim(p.iat, now), 'auth-jwt-iat'],
    ['nbf (not before)', p.nbf === undefined ? undefined : timeClaim(p.nbf, now)],
    ['iss', str(p.iss)],
    ['sub', str(p.sub)],
    ['aud', p.aud === undefined ? undefined : <Chips values={list(p.aud)} />, 'auth-jwt-aud'],
    ['scope', scopes.length ? <Chips values={scopes} /> : undefined, 'auth-jwt-scope'],
    ['client_id', str(p.client_id ?? p.azp), 'auth-jwt-client'],
    ['alg / kid', [str(jwt.header.alg), str(jwt.header.kid)].filter(Boolean).join(' · ') || undefined],
  ];
  return (
    <div className={classes.card} data-testid="auth-jwt" data-jwt="true">
      <Text fw={600} size="sm" mb={4}>
        Access token (JWT, decoded — not verified here)
      </Text>
      <Kv rows={rows} testId="auth-jwt-claims" />
      <Section title="Header">
        <JsonTree value={jwt.header} expandDepth={3} testId="auth-jwt-header" />
      </Section>
      <Section title="Payload">
        <JsonTree value={jwt.payload} expandDepth={3} testId="auth-jwt-payload" />
      </Section>
    </div>
  );
}
