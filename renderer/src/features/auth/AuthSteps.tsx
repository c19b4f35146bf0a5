/**
 * The flow, step by step: every HTTP exchange of the sign-in (resource metadata, authorization
 * server metadata, registration, token, revocation) and the steps between them (authorize,
 * callback, tokens, failures), with the 401/403 challenges that started them. Each row opens
 * to its headers, bodies and decoded parameters.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { Alert, Badge, Button, Collapse, Group, Text, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { SafeText } from '../../components/SafeText';
import { navigation } from '../../state/navigation';
import { formatMs, formatTime } from '../../components/format';
import classes from './auth.module.css';
import { Body, Headers, Kv, ParamTable, Section, type Row } from './parts';
import { AUTHORIZE_PARAMS, STEP_LABEL, decodeAuthorizationUrl, formParams, parseChallenge, type AuthStep, type EventStep, type ExchangeStep, type StepKind } from './steps';
import type { StepsState } from './use-auth';

/** At most this many rows are drawn (the most recent). */
const SHOWN = 300;

const STEP_COLOR: Partial<Record<StepKind, string>> = {
  challenge: 'orange',
  prm: 'cyan',
  'as-metadata': 'cyan',
  register: 'grape',
  authorize: 'indigo',
  callback: 'indigo',
  token: 'teal',
  tokens: 'teal',
  refresh: 'teal',
  revoke: 'gray',
  'sign-out': 'gray',
  invalidate: 'yellow',
  retry: 'blue',
  failed: 'red',
};

const statusColor = (status: number) => (status >= 400 ? 'red' : status >= 300 ? 'yellow' : 'green');
const KNOWN_AUTHORIZE = new Set<string>(AUTHORIZE_PARAMS);

export function AuthSteps({ state }: { state: StepsState }) {
  const { steps, loading, error, more } = state;
  const shown = steps.length > SHOWN ? steps.slice(-SHOWN) : steps;
  return (
    <div className={classes.card}>
      <Group justify="space-between" mb={6}>
        <Text fw={600} size="sm">
          Steps
        </Text>
        <Text size="xs" c="dimmed" data-testid="auth-steps-count" data-count={steps.length}>
          {loading ? 'Loading…' : `${steps.length} step${steps.length === 1 ? '' : 's'}${steps.length > SHOWN ? ` (the latest ${SHOWN} shown)` : ''}${more ? ' · older events not read' : ''}`}
        </Text>
      </Group>
      {error && (
        <Alert color="red" p="xs" mb={6}>
          Could not read the trace: {error}
        </Alert>
      )}
      {!loading && steps.length === 0 ? (
        <Text size="xs" c="dimmed" data-testid="auth-steps">
          Nothing yet. The flow starts when the server answers 401 (or 403 insufficient_scope); its steps appear here as they happen.
        </Text>
      ) : (
        <div className={classes.steps} data-testid="auth-steps">
          {shown.map((step) => (
            <StepRow key={step.key} step={step} />
          ))}
        </div>
      )}
    </div>
  );
}

function StepRow({ step }: { step: AuthStep }) {
  const [open, setOpen] = useState(false);
  const failed = step.kind === 'failed' || (step.type === 'exchange' && step.status !== undefined && step.status >= 400 && step.kind !== 'challenge') || (step.type === 'exchange' && step.end?.http?.end === 'error');
  const label = step.type === 'event' && step.kind === 'failed' ? `failed: ${step.name}` : STEP_LABEL[step.kind];
  return (
    <div className={`${classes.step} ${failed ? classes.stepFailed : ''}`} data-testid="auth-step" data-step={step.kind} data-seq={step.seq} data-status={step.type === 'exchange' ? step.status : undefined} data-expanded={open}>
      <UnstyledButton className={classes.stepHeader} onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={`${classes.mono} ${classes.dim}`}>{formatTime(step.ts)}</span>
        <span>
          <Badge size="sm" variant="light" color={STEP_COLOR[step.kind] ?? 'gray'} tt="none" data-testid="auth-step-kind">
            {label}
          </Badge>
        </span>
        <span>
          {step.type === 'exchange' && step.status !== undefined && (
            <Badge size="sm" variant="filled" color={statusColor(step.status)} data-testid="auth-step-status">
              {step.status}
            </Badge>
          )}
        </span>
        <span className={classes.stepText}>{step.type === 'exchange' ? <ExchangeSummary step={step} /> : <SafeText inline text={step.text || step.name} clip={400} />}</span>
        <span className={`${classes.mono} ${classes.dim}`} style={{ textAlign: 'right' }}>
          {step.type === 'exchange' ? formatMs(step.durationMs ?? step.response?.http?.ttfbMs) : ''}
        </span>
        <span className={classes.dim}>{open ? '▾' : '▸'}</span>
      </UnstyledButton>
      <Collapse expanded={open}>{open && <div className={classes.stepDetail}>{step.type === 'exchange' ? <ExchangeDetail step={step} /> : <EventDetail step={step} />}</div>}</Collapse>
    </div>
  );
}

function ExchangeSummary({ step }: { step: ExchangeStep }) {
  return (
    <>
      <span className={classes.mono}>{step.method ?? '?'} </span>
      <SafeText inline text={step.url ?? `(exchange ${step.exchange} on ${step.channel})`} clip={400} />
    </>
  );
}

function ExchangeDetail({ step }: { step: ExchangeStep }) {
  const form = step.request && (step.method ?? '').toUpperCase() === 'POST' ? formParams(step.request.body) : undefined;
  const isForm = form && typeof step.request?.body === 'string';
  const challenge = parseChallenge(step.response?.http?.headers?.['www-authenticate']);
  const authorize = step.kind === 'authorize' && step.url ? decodeAuthorizationUrl(step.url) : undefined;
  const firstSeq = step.request?.seq ?? step.response?.seq ?? step.seq;
  return (
    <div data-testid="auth-step-detail">
      <Kv
        rows={[
          ['URL', step.url],
          ['Method', step.method],
          ['Channel', step.channel],
          ['Status', step.status !== undefined ? `${step.status} ${step.response?.http?.statusText ?? ''}`.trim() : undefined],
          ['Duration', formatMs(step.durationMs)],
          ['Ended', step.end?.http?.end],
          ['Error', step.end?.text],
        ]}
      />
      {challenge && (
        <Section title={`WWW-Authenticate: ${challenge.scheme}`}>
          <ParamTable params={Object.entries(challenge.params)} testId="auth-challenge-params" />
        </Section>
      )}
      {authorize && (
        <Section title="Authorization request">
          <ParamTable params={authorize.params} testId="auth-authorize-params" highlight={KNOWN_AUTHORIZE} />
        </Section>
      )}
      {isForm && form && (
        <Section title="Form parameters">
          <ParamTable params={Object.entries(form)} testId="auth-form-params" />
        </Section>
      )}
      <Section title="Request headers">
        <Headers headers={step.request?.http?.headers} testId="auth-request-headers" />
      </Section>
      {!isForm && step.request?.body !== undefined && (
        <Section title="Request body">
          <Body event={step.request} testId="auth-request-body" />
        </Section>
      )}
      <Section title="Response headers">
        <Headers headers={step.response?.http?.headers} testId="auth-response-headers" />
      </Section>
      <Section title="Response body">
        <Body event={step.end} testId="auth-response-body" />
      </Section>
      <Group gap="xs" mt={8}>
        <Text size="xs" c="dimmed" style={{ flex: 1 }}>
          Secrets (tokens, codes, verifiers, client secrets) were redacted when recorded.
        </Text>
        <Button size="compact-xs" variant="subtle" onClick={() => navigation.showTraffic({ kind: 'seq', seq: firstSeq })} data-testid="auth-step-traffic">
          Show in Traffic
        </Button>
      </Group>
    </div>
  );
}

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : safeStringify(v));

function EventDetail({ step }: { step: EventStep }) {
  const meta = step.event.meta ?? {};
  if (step.kind === 'failed') {
    return (
      <Alert color="red" p="xs" title={`Failed at the ${step.name} step`} data-testid="auth-step-detail">
        <SafeText text={str(meta.error) ?? step.text.replace(/^failed:\s*/, '')} />
        {typeof meta.hint === 'string' && (
          <Text size="xs" mt={4}>
            <b>Try:</b> <SafeText inline text={meta.hint} />
          </Text>
        )}
      </Alert>
    );
  }
  if (step.kind === 'authorize') {
    const url = str(meta.url);
    const decoded = url ? decodeAuthorizationUrl(url) : undefined;
    const fromMeta = meta.params && typeof meta.params === 'object' && !Array.isArray(meta.params) ? Object.entries(meta.params as Record<string, unknown>).map(([k, v]): [string, string] => [k, str(v) ?? '']) : undefined;
    const params = decoded?.params ?? fromMeta ?? [];
    return (
      <div data-testid="auth-step-detail">
        <SafeText text={step.text} />
        <Kv rows={[['Endpoint', decoded?.endpoint], ['URL', url]]} />
        <Section title="Authorization request">
          <ParamTable params={params} testId="auth-authorize-params" highlight={KNOWN_AUTHORIZE} />
        </Section>
      </div>
    );
  }
  if (step.kind === 'callback') {
    const matches = meta.stateMatches;
    return (
      <div data-testid="auth-step-detail">
        <SafeText text={step.text} />
        <Kv
          rows={[
            ['Error', str(meta.error)],
            ['Error description', str(meta.errorDescription)],
            ['Issuer (iss)', str(meta.iss)],
            [
              'State matches',
              matches === undefined ? undefined : (
                <Badge size="sm" color={matches === true ? 'green' : 'red'} data-testid="auth-callback-state">
                  {matches === true ? 'yes' : 'no — the callback was ignored'}
                </Badge>
              ),
            ],
          ]}
        />
      </div>
    );
  }
  const rows: Row[] = Object.entries(meta)
    .filter(([k]) => k !== 'step')
    .map(([k, v]) => [k, str(v)]);
  return (
    <div data-testid="auth-step-detail">
      <SafeText text={step.text} />
      <Kv rows={rows} />
    </div>
  );
}
