/**
 * A form-mode elicitation: the server's `requestedSchema` rendered as inputs (never a password
 * input), defaults pre-filled, required fields marked, each field checked before Accept, a
 * warning on fields that look like secrets. Accept sends only the touched fields; main merges
 * the defaults and checks again.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { Alert, Button, Checkbox, Code, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useMemo, useState, type ReactNode } from 'react';
import type { PendingRequest, RequestAnswer } from '../../../../contract';
import { checkDraft, effectiveValue, fieldsOf, initialDraft, contentOf, type Draft, type DraftValue, type FieldModel } from './form-model';
import classes from './requests.module.css';
import { RequiredMark, optionLabel } from '../../components/fields/FieldParts';
import { countHint, formatPlaceholder } from '../../components/fields/hints';
import { ServerText, str, visible } from './safe';

export interface AnswerProps {
  request: PendingRequest;
  /** Sends the answer; resolves to an error message to show, or null when it was taken. */
  onAnswer(answer: RequestAnswer): Promise<string | null>;
}

const drafts = new Map<string, Draft>();

export function ElicitationForm({ request, onAnswer }: AnswerProps) {
  const fields = useMemo(() => fieldsOf(request.params.requestedSchema), [request.params.requestedSchema]);
  const [draft, setDraftState] = useState<Draft>(() => drafts.get(request.id) ?? initialDraft(fields));
  const [showErrors, setShowErrors] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const errors = useMemo(() => checkDraft(fields, draft), [fields, draft]);
  const errorCount = Object.keys(errors).length;

  const setDraft = (next: Draft) => {
    drafts.set(request.id, next);
    setDraftState(next);
  };
  const change = (name: string, value: DraftValue) =>
    setDraft({ values: { ...draft.values, [name]: value }, touched: draft.touched.includes(name) ? draft.touched : [...draft.touched, name] });

  const send = async (action: 'accept' | 'decline' | 'cancel') => {
    if (action === 'accept' && errorCount > 0) {
      setShowErrors(true);
      setError(`${errorCount} field${errorCount > 1 ? 's need' : ' needs'} attention before the answer can go to the server.`);
      return;
    }
    setBusy(action);
    setError(null);
    const answer: RequestAnswer = action === 'accept' ? { kind: 'elicitation', action, content: contentOf(fields, draft) } : { kind: 'elicitation', action };
    const problem = await onAnswer(answer);
    setBusy(null);
    if (problem) setError(problem);
    else drafts.delete(request.id);
  };

  const required = fields.filter((f) => f.required).length;
  const secrets = fields.filter((f) => f.secret);

  return (
    <Stack gap="sm" data-testid="elicitation-form">
      <div className={classes.message} data-testid="request-message">
        <ServerText text={str(request.params.message) || '(the server sent no message)'} />
      </div>
      {secrets.length > 0 && (
        <Alert color="orange" variant="light" p="xs" title="This form asks for a secret" data-testid="secret-warning">
          <Text size="xs">
            {secrets.map((f) => `“${visible(f.title, 60)}” asks for ${f.secretWhat ?? 'a secret'}`).join('; ')}. MCP servers must not ask for secrets through a form: what you type goes to the
            server as plain text and is kept in Switchboard's trace. Leave {secrets.length > 1 ? 'them' : 'it'} empty unless you trust this server.
          </Text>
        </Alert>
      )}
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void send('accept');
        }}
      >
        <div className={classes.fieldGrid}>
          {fields.map((field) => (
            <FieldInput key={field.name} field={field} value={draft.values[field.name]} error={showErrors ? errors[field.name] : undefined} touched={draft.touched.includes(field.name)} onChange={(v) => change(field.name, v)} draft={draft} />
          ))}
        </div>
        {fields.length === 0 && (
          <Text size="sm" c="dimmed">
            The server asks for no fields: accepting just says yes.
          </Text>
        )}
        {error && (
          <Alert color="red" mt="sm" data-testid="answer-error" className="pre-wrap">
            {error}
          </Alert>
        )}
        <Group justify="space-between" wrap="nowrap" className={classes.stickyFooter}>
          <Text size="xs" c="dimmed">
            {fields.length} field{fields.length === 1 ? '' : 's'}, {required} required. Untouched fields get the server's default.
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Button variant="subtle" color="gray" onClick={() => void send('cancel')} loading={busy === 'cancel'} disabled={busy !== null} data-testid="answer-cancel">
              Cancel
            </Button>
            <Button variant="default" onClick={() => void send('decline')} loading={busy === 'decline'} disabled={busy !== null} data-testid="answer-decline">
              Decline
            </Button>
            <Button type="submit" loading={busy === 'accept'} disabled={busy !== null} data-testid="answer-accept">
              Accept
            </Button>
          </Group>
        </Group>
      </form>
    </Stack>
  );
}

function FieldInput({ field, value, error, touched, onChange, draft }: { field: FieldModel; value: DraftValue | undefined; error?: string; touched: boolean; onChange(v: DraftValue): void; draft: Draft }) {
  const label = (
    <>
      <ServerText inline text={field.title} />
      {field.required && (
        <>
          {' '}
          <RequiredMark />
        </>
      )}
    </>
  );
  const testId = `field-${field.name}`;
  const description = describe(field, touched, draft);
  const common = { label, description, error, size: 'xs' as const, 'data-field': field.name };
  const wide = field.kind === 'multi' || field.kind === 'unsupported' || (field.description?.length ?? 0) > 80;
  const secretNote = field.secret ? (
    <Text size="xs" c="orange" data-testid={`secret-note-${field.name}`}>
      ⚠ Asks for {field.secretWhat ?? 'a secret'} — sent in clear text, kept in the trace.
    </Text>
  ) : null;

  let input;
  switch (field.kind) {
    case 'boolean':
      input = <Checkbox {...common} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} data-testid={testId} mt={6} />;
      break;
    case 'select':
      input = (
        <NativeSelect
          {...common}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.currentTarget.value)}
          data={[{ value: '', label: field.required ? '— choose —' : '— none —' }, ...(field.options ?? []).map((o) => ({ value: o.value, label: optionLabel(o.label) }))]}
          data-testid={testId}
        />
      );
      break;
    case 'multi':
      input = (
        <Checkbox.Group {...common} value={Array.isArray(value) ? value : []} onChange={(v) => onChange(v)} data-testid={testId}>
          <Group gap="md" mt={6}>
            {(field.options ?? []).map((o) => (
              <Checkbox key={o.value} size="xs" value={o.value} label={<ServerText inline text={o.label} />} data-testid={`${testId}-${o.value}`} />
            ))}
          </Group>
        </Checkbox.Group>
      );
      break;
    case 'unsupported':
      input = (
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {label}
          </Text>
          <Text size="xs" c="dimmed">
            Not a field type elicitation allows (flat strings, numbers, booleans, enums): left out of the answer.
          </Text>
          <Code block>{safeStringify(field.raw, { space: 2 }).slice(0, 2_000)}</Code>
        </Stack>
      );
      break;
    default: {
      const type = field.kind === 'date' ? 'date' : field.kind === 'date-time' ? 'datetime-local' : 'text';
      input = (
        <TextInput
          {...common}
          type={type}
          inputMode={field.kind === 'number' || field.kind === 'integer' ? 'decimal' : field.kind === 'email' ? 'email' : field.kind === 'uri' ? 'url' : undefined}
          autoComplete="off"
          spellCheck={false}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.currentTarget.value)}
          placeholder={placeholderOf(field)}
          data-testid={testId}
          classNames={field.kind === 'text' ? undefined : { input: 'mono' }}
        />
      );
    }
  }
  return (
    <div className={wide ? classes.wide : undefined} data-testid="form-field" data-field-name={field.name} data-field-kind={field.kind}>
      {input}
      {secretNote}
    </div>
  );
}

/** The field's description line: the server's text, the rules, and whether the default applies. */
function describe(field: FieldModel, touched: boolean, draft: Draft): ReactNode {
  const rules = rulesOf(field);
  const emptied = touched && field.default !== undefined && draft.values[field.name] === '' && effectiveValue(field, draft) === field.default;
  const parts: ReactNode[] = [];
  if (field.description) parts.push(<ServerText key="d" inline text={field.description} clip={400} />);
  if (rules) parts.push(rules);
  if (field.default !== undefined && !touched) parts.push(<span key="s" data-testid={`default-${field.name}`}>server default</span>);
  if (emptied) parts.push("empty: the server's default is sent");
  if (parts.length === 0) return undefined;
  return <>{parts.flatMap((p, i) => (i === 0 ? [p] : [' · ', p]))}</>;
}

function rulesOf(field: FieldModel): string {
  const parts: string[] = [];
  if (field.kind === 'email') parts.push('e-mail');
  if (field.kind === 'uri') parts.push('URI');
  if (field.kind === 'date') parts.push('date');
  if (field.kind === 'date-time') parts.push('date and time (sent as UTC)');
  if (field.kind === 'integer') parts.push('whole number');
  const length = countHint(field.minLength, field.maxLength, 'character');
  if (length) parts.push(length);
  if (field.pattern) parts.push(`pattern ${visible(field.pattern, 80)}`);
  if (field.minimum !== undefined || field.maximum !== undefined) parts.push(`${field.minimum ?? '−∞'} to ${field.maximum ?? '∞'}`);
  if (field.minItems !== undefined || field.maxItems !== undefined) parts.push(`choose ${field.minItems ?? 0}–${field.maxItems ?? field.options?.length ?? '∞'}`);
  return parts.join(', ');
}

function placeholderOf(field: FieldModel): string | undefined {
  if (field.kind === 'number' || field.kind === 'integer') return field.minimum !== undefined ? String(field.minimum) : undefined;
  // A date-time field is the browser's own picker: it has no placeholder.
  return field.kind === 'date-time' ? undefined : formatPlaceholder(field.kind);
}
