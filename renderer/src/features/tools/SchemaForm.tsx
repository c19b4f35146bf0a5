/**
 * A form generated from a tool's input schema: strings (with formats and length/pattern hints),
 * numbers and integers with bounds, booleans, enums, arrays (add/remove items), nested objects
 * (fieldsets), nullable values (a "null" toggle), defaults pre-filled by the caller. Anything it
 * does not model (oneOf, tuples, maps…) gets a small JSON editor of its own, so every schema
 * can still be filled in. Field names, titles and descriptions are server text: shown safely.
 */
import { ActionIcon, Button, Checkbox, Group, NumberInput, SegmentedControl, Select, Stack, Switch, Text, TextInput, Textarea, Tooltip } from '@mantine/core';
import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import { safeStringify } from '../../../../contract/bounded-json';
import { FieldError, RequiredMark, optionLabel } from '../../components/fields/FieldParts';
import { countHint, formatPlaceholder } from '../../components/fields/hints';
import { SafeLabel, SafeText } from '../../components/SafeText';
import safeText from '../../components/SafeText.module.css';
import { MAX_SCHEMA_DEPTH, emptyFor, fieldShape, initialValue, isObject, pathAttr, pathKey, requiredSet, type JsonSchema, type Path } from './schema';
import classes from './tools.module.css';
import type { Issue } from './validation';

/**
 * How many times one `$ref` may open inside itself on a path (a tree of nodes, `$ref: "#"`):
 * below that, the recursive part is a JSON editor, so a self-referential schema gets a form of
 * bounded size.
 */
export const MAX_REF_REPEATS = 3;

interface FormContext {
  root: JsonSchema;
  issues: Map<string, string[]>;
  /** Show errors of fields the user has not touched yet (after a Run attempt). */
  showAll: boolean;
  set(path: Path, value: unknown): void;
}

export const SchemaForm = memo(function SchemaForm({ schema, value, onChange, issues, showAll }: { schema: JsonSchema; value: Record<string, unknown>; onChange(next: Record<string, unknown>): void; issues: Issue[]; showAll: boolean }) {
  const valueRef = useRef(value);
  valueRef.current = value;
  const byPath = new Map<string, string[]>();
  for (const issue of issues) {
    const key = pathKey(issue.path);
    byPath.set(key, [...(byPath.get(key) ?? []), issue.message]);
  }
  const ctx: FormContext = {
    root: schema,
    issues: byPath,
    showAll,
    set: (path, next) => onChange(setPath(valueRef.current, path, next) as Record<string, unknown>),
  };
  const shape = fieldShape(schema, schema);
  if (shape.kind !== 'object') {
    return (
      <Text size="sm" c="dimmed">
        This input schema is not an object with properties; use the JSON tab.
      </Text>
    );
  }
  const properties = Object.entries(shape.schema.properties as Record<string, unknown>);
  if (properties.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="form-no-arguments">
        This tool takes no arguments.
      </Text>
    );
  }
  return (
    <Stack gap="sm" data-testid="tool-form">
      <ObjectFields schema={shape.schema} value={value} path={[]} ctx={ctx} depth={0} refs={NO_REFS} />
    </Stack>
  );
});

function setPath(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = value.slice();
    copy[head as number] = setPath(copy[head as number], rest, next);
    return copy;
  }
  const base = isObject(value) ? value : {};
  const key = String(head);
  const child = setPath(Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined, rest, next);
  const copy = { ...base };
  if (child === undefined) delete copy[key];
  else Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
  return copy;
}

function own(value: unknown, key: string): unknown {
  return isObject(value) && Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

const NO_REFS: readonly string[] = [];

function ObjectFields({ schema, value, path, ctx, depth, refs }: { schema: JsonSchema; value: unknown; path: Path; ctx: FormContext; depth: number; refs: readonly string[] }) {
  const required = requiredSet(schema);
  return (
    <>
      {Object.entries(schema.properties as Record<string, unknown>).map(([key, child]) => (
        <Field key={key} name={key} schema={child} value={own(value, key)} path={[...path, key]} required={required.has(key)} ctx={ctx} depth={depth + 1} refs={refs} />
      ))}
    </>
  );
}

interface FieldProps {
  name: string;
  schema: unknown;
  value: unknown;
  path: Path;
  required: boolean;
  ctx: FormContext;
  depth: number;
  /** An array item: no label row of its own (the list shows its index). */
  inArray?: boolean;
  /** The `$ref`s opened on the way here (to stop a schema that refers to itself). */
  refs: readonly string[];
}

function Field(props: FieldProps) {
  const { name, schema: rawSchema, value, path, required, ctx, depth, inArray, refs } = props;
  const ref = isObject(rawSchema) && typeof rawSchema.$ref === 'string' ? rawSchema.$ref : undefined;
  const recursive = ref !== undefined && refs.filter((r) => r === ref).length >= MAX_REF_REPEATS;
  const shape = depth > MAX_SCHEMA_DEPTH || recursive ? { kind: 'raw' as const, schema: {}, nullable: false } : fieldShape(rawSchema, ctx.root);
  const innerRefs = ref ? [...refs, ref] : refs;
  const { schema, nullable } = shape;
  const errors = ctx.issues.get(pathKey(path));
  const error = errors && (ctx.showAll || value !== undefined) ? errors.join(' ') : undefined;
  const attr = pathAttr(path);
  const isNull = value === null;

  const label = inArray && !nullable ? null : <FieldLabel name={name} schema={schema} required={required && !inArray} nullable={nullable} isNull={isNull} path={path} ctx={ctx} rawSchema={rawSchema} />;
  const description = inArray ? null : <FieldHints schema={schema} kind={shape.kind} />;

  if (isNull && nullable) {
    return (
      <div data-field={attr}>
        {label}
        <Text size="xs" c="dimmed" className="mono" pl={2}>
          null
        </Text>
      </div>
    );
  }

  switch (shape.kind) {
    case 'object':
      return <ObjectField {...props} refs={innerRefs} schema={schema} label={label} description={description} error={error} />;
    case 'array':
      return <ArrayField {...props} refs={innerRefs} schema={schema} label={label} description={description} error={error} />;
    case 'boolean':
      return (
        <Labelled label={label} description={description} attr={attr}>
          {required || 'default' in schema ? (
            <Switch
              size="sm"
              label={<span className="mono">{value === true ? 'true' : 'false'}</span>}
              checked={value === true}
              onChange={(e) => ctx.set(path, e.currentTarget.checked)}
              error={error}
              aria-label={name}
              data-field-path={attr}
            />
          ) : (
            <Stack gap={4}>
              <SegmentedControl
                size="xs"
                w="fit-content"
                value={value === true ? 'true' : value === false ? 'false' : 'unset'}
                onChange={(v) => ctx.set(path, v === 'unset' ? undefined : v === 'true')}
                data={[
                  { value: 'unset', label: 'not set' },
                  { value: 'true', label: 'true' },
                  { value: 'false', label: 'false' },
                ]}
                data-field-path={attr}
              />
              {error && <FieldError text={error} />}
            </Stack>
          )}
        </Labelled>
      );
    case 'enum': {
      const options = (schema.enum as unknown[]).slice(0, 1_000);
      const wanted = safeStringify(value);
      const index = options.findIndex((o) => safeStringify(o) === wanted);
      return (
        <Labelled label={label} description={description} attr={attr}>
          <Select
            aria-label={name}
            size="xs"
            data={options.map((o, i) => ({ value: String(i), label: optionLabel(o) }))}
            value={index >= 0 ? String(index) : null}
            onChange={(v) => ctx.set(path, v === null ? undefined : options[Number(v)])}
            clearable={!required}
            allowDeselect={!required}
            placeholder={value !== undefined && index < 0 ? `not an option: ${safeStringify(value).slice(0, 60)}` : 'choose…'}
            error={error}
            comboboxProps={{ withinPortal: true }}
            data-field-path={attr}
          />
        </Labelled>
      );
    }
    case 'const':
      return (
        <Labelled label={label} description={description} attr={attr}>
          <TextInput aria-label={name} size="xs" value={safeStringify(schema.const)} readOnly classNames={{ input: 'mono' }} data-field-path={attr} />
        </Labelled>
      );
    case 'number':
    case 'integer':
      return (
        <Labelled label={label} description={description} attr={attr}>
          <NumberInput
            aria-label={name}
            size="xs"
            value={typeof value === 'number' || typeof value === 'string' ? value : ''}
            onChange={(v) => ctx.set(path, v === '' ? undefined : v)}
            allowDecimal={shape.kind === 'number'}
            clampBehavior="none"
            min={typeof schema.minimum === 'number' ? schema.minimum : undefined}
            max={typeof schema.maximum === 'number' ? schema.maximum : undefined}
            error={error}
            classNames={{ input: 'mono' }}
            data-field-path={attr}
          />
        </Labelled>
      );
    case 'string':
      return <StringField {...props} schema={schema} label={label} description={description} error={error} />;
    default:
      return <RawField {...props} schema={schema} label={label} description={description} error={error} />;
  }
}

/** The label row (name, required mark, title, null toggle) and hints, above a bare input. */
function Labelled({ label, description, children, attr }: { label: ReactNode; description: ReactNode; children: ReactNode; attr: string }) {
  return (
    <div data-field={attr}>
      {label}
      {description}
      <div style={{ marginTop: 4 }}>{children}</div>
    </div>
  );
}

type InnerProps = Omit<FieldProps, 'schema'> & { schema: JsonSchema; label: ReactNode; description: ReactNode; error?: string };

function StringField({ name, schema, value, path, required, ctx, label, description, error }: InnerProps) {
  const attr = pathAttr(path);
  const text = typeof value === 'string' ? value : value === undefined ? '' : safeStringify(value);
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const onText = (next: string) => ctx.set(path, next === '' && !required ? undefined : next);
  const long = (typeof schema.maxLength === 'number' && schema.maxLength > 300) || text.includes('\n') || text.length > 120;
  if (long) {
    return (
      <Labelled label={label} description={description} attr={attr}>
        <Textarea aria-label={name} size="xs" autosize minRows={2} maxRows={8} value={text} onChange={(e) => onText(e.currentTarget.value)} error={error} classNames={{ input: 'mono' }} data-field-path={attr} />
      </Labelled>
    );
  }
  const type = format === 'email' ? 'email' : format === 'uri' || format === 'url' ? 'url' : format === 'date' ? 'date' : 'text';
  return (
    <Labelled label={label} description={description} attr={attr}>
      <TextInput
        aria-label={name}
        size="xs"
        type={type}
        value={text}
        onChange={(e) => onText(e.currentTarget.value)}
        error={error}
        placeholder={formatPlaceholder(format)}
        rightSectionWidth={format === 'date-time' ? 48 : undefined}
        rightSection={
          format === 'date-time' ? (
            <Button size="compact-xs" variant="subtle" onClick={() => ctx.set(path, new Date().toISOString())}>
              now
            </Button>
          ) : undefined
        }
        data-field-path={attr}
      />
    </Labelled>
  );
}

function ObjectField({ name, schema, value, path, required, ctx, depth, label, description, error, inArray, refs }: InnerProps) {
  const attr = pathAttr(path);
  if (!isObject(value)) {
    if (!required) {
      return (
        <div data-field={attr}>
          <Group gap={6} wrap="nowrap">
            <Button
              size="compact-xs"
              variant="light"
              onClick={() => ctx.set(path, initialValue(schema, ctx.root, true, depth) ?? {})}
              data-object-add={attr}
              leftSection="+"
              maw="100%"
            >
              <span className={safeText.inlineText}>Add {name.slice(0, 60)}</span>
            </Button>
            <Text size="xs" c="dimmed">
              optional object
            </Text>
          </Group>
          {description}
        </div>
      );
    }
  }
  return (
    <fieldset className={classes.fieldset} data-field={attr} data-testid="form-fieldset">
      {!inArray && (
        <legend>
          <Group gap={6} wrap="nowrap">
            {label}
            {!required && (
              <Button size="compact-xs" variant="subtle" color="gray" onClick={() => ctx.set(path, undefined)} data-object-remove={attr}>
                remove
              </Button>
            )}
          </Group>
        </legend>
      )}
      <Stack gap="xs">
        {description}
        <ObjectFields schema={schema} value={value} path={path} ctx={ctx} depth={depth} refs={refs} />
        {error && <FieldError text={error} />}
      </Stack>
    </fieldset>
  );
}

function ArrayField({ schema, value, path, ctx, depth, label, description, error, refs }: InnerProps) {
  const attr = pathAttr(path);
  const items = Array.isArray(value) ? value : [];
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const shown = items.slice(0, 200);
  return (
    <fieldset className={classes.fieldset} data-field={attr}>
      <legend>{label}</legend>
      <Stack gap="xs">
        {description}
        {!Array.isArray(value) && value !== undefined && <FieldError text={`Not an array: ${safeStringify(value).slice(0, 80)}`} />}
        {shown.map((item, i) => (
          <div key={i} className={classes.arrayItem}>
            <span className={classes.arrayIndex}>{i}</span>
            <div style={{ flex: 1, minWidth: 0 }}>
              <Field name={`${i}`} schema={schema.items} value={item} path={[...path, i]} required ctx={ctx} depth={depth + 1} inArray refs={refs} />
            </div>
            <Tooltip label="Remove this item">
              <ActionIcon
                variant="subtle"
                color="gray"
                size="sm"
                mt={4}
                onClick={() => ctx.set(path, items.filter((_, j) => j !== i))}
                aria-label={`Remove item ${i}`}
                data-array-remove={pathAttr([...path, i])}
              >
                ×
              </ActionIcon>
            </Tooltip>
          </div>
        ))}
        {items.length > shown.length && (
          <Text size="xs" c="dimmed">
            {items.length - shown.length} more items: edit them in the JSON tab.
          </Text>
        )}
        <Group gap={6}>
          <Button
            size="compact-xs"
            variant="light"
            leftSection="+"
            disabled={items.length >= max}
            onClick={() => ctx.set(path, [...items, emptyFor(schema.items, ctx.root)])}
            data-array-add={attr}
          >
            Add item
          </Button>
          <Text size="xs" c="dimmed">
            {items.length} {items.length === 1 ? 'item' : 'items'}
          </Text>
        </Group>
        {error && <FieldError text={error} />}
      </Stack>
    </fieldset>
  );
}

/** A JSON editor for one field whose schema the form does not model. */
function RawField({ name, value, path, ctx, label, description, error }: InnerProps) {
  const attr = pathAttr(path);
  const [text, setText] = useState(() => (value === undefined ? '' : safeStringify(value, { space: 2 })));
  const [parseError, setParseError] = useState<string | null>(null);
  const emitted = useRef<unknown>(value);
  useEffect(() => {
    if (value !== emitted.current) {
      emitted.current = value;
      setText(value === undefined ? '' : safeStringify(value, { space: 2 }));
      setParseError(null);
    }
  }, [value]);
  return (
    <Labelled label={label} description={description} attr={attr}>
      <Textarea
        aria-label={name}
        size="xs"
        autosize
        minRows={1}
        maxRows={8}
        value={text}
        onChange={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          if (next.trim() === '') {
            emitted.current = undefined;
            setParseError(null);
            ctx.set(path, undefined);
            return;
          }
          try {
            const parsed: unknown = JSON.parse(next);
            emitted.current = parsed;
            setParseError(null);
            ctx.set(path, parsed);
          } catch (err) {
            setParseError(`Invalid JSON: ${(err as Error).message}`);
          }
        }}
        error={parseError ?? error}
        classNames={{ input: 'mono' }}
        placeholder="JSON"
        data-field-path={attr}
      />
    </Labelled>
  );
}

function FieldLabel({ name, schema, required, nullable, isNull, path, ctx, rawSchema }: { name: string; schema: JsonSchema; required: boolean; nullable: boolean; isNull: boolean; path: Path; ctx: FormContext; rawSchema: unknown }): ReactNode {
  const title = typeof schema.title === 'string' && schema.title !== name ? schema.title : undefined;
  return (
    <span className={classes.fieldLabel} style={{ display: 'flex' }}>
      <span className={classes.fieldName} style={{ minWidth: 0, maxWidth: 280 }}>
        <SafeLabel text={/^\d+$/.test(name) && path.length > 1 ? `item ${name}` : name} max={80} />
      </span>
      {required && <RequiredMark />}
      {title && (
        <Text span size="xs" c="dimmed" style={{ minWidth: 0 }}>
          <SafeLabel text={title} max={80} />
        </Text>
      )}
      {nullable && (
        <Checkbox
          size="xs"
          label="null"
          checked={isNull}
          onChange={(e) => {
            const checked = e.currentTarget.checked;
            ctx.set(path, checked ? null : (initialValue(stripNull(rawSchema, ctx.root), ctx.root, required) ?? undefined));
          }}
          onClick={(e) => e.stopPropagation()}
          data-null-toggle={pathAttr(path)}
          styles={{ label: { paddingLeft: 4, fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
      )}
    </span>
  );
}

/** The non-null branch of a nullable schema (for a fresh value when "null" is unticked). */
function stripNull(schema: unknown, root: JsonSchema): unknown {
  const shape = fieldShape(schema, root);
  const { default: _default, ...rest } = shape.schema;
  return rest;
}

function FieldHints({ schema, kind }: { schema: JsonSchema; kind: string }) {
  const hints: string[] = [];
  // ±(2^53 - 1) is what generators write for "any safe integer": not worth a hint.
  const num = (key: string) => (typeof schema[key] === 'number' && Math.abs(schema[key] as number) < Number.MAX_SAFE_INTEGER ? (schema[key] as number) : undefined);
  if (typeof schema.format === 'string') hints.push(`format: ${schema.format.slice(0, 40)}`);
  if (kind === 'string') {
    const min = num('minLength');
    const max = num('maxLength');
    const length = countHint(min, max, 'character');
    if (length) hints.push(length);
    // Generators add a pattern to formats (e-mail…): the format says it better.
    if (typeof schema.pattern === 'string' && typeof schema.format !== 'string') hints.push(`pattern: ${schema.pattern.length > 60 ? `${schema.pattern.slice(0, 60)}…` : schema.pattern}`);
  }
  if (kind === 'number' || kind === 'integer') {
    if (kind === 'integer') hints.push('integer');
    const bounds: string[] = [];
    if (num('minimum') !== undefined) bounds.push(`≥ ${num('minimum')}`);
    if (num('exclusiveMinimum') !== undefined) bounds.push(`> ${num('exclusiveMinimum')}`);
    if (num('maximum') !== undefined) bounds.push(`≤ ${num('maximum')}`);
    if (num('exclusiveMaximum') !== undefined) bounds.push(`< ${num('exclusiveMaximum')}`);
    if (num('multipleOf') !== undefined) bounds.push(`multiple of ${num('multipleOf')}`);
    hints.push(...bounds);
  }
  if (kind === 'array') {
    const min = num('minItems');
    const max = num('maxItems');
    const count = countHint(min, max, 'item');
    if (count) hints.push(count);
    if (schema.uniqueItems === true) hints.push('unique');
  }
  if (kind === 'raw') hints.push('JSON');
  const description = typeof schema.description === 'string' ? schema.description : '';
  if (!description && hints.length === 0) return null;
  return (
    <span className={classes.fieldHint}>
      {description && <SafeText text={description} clip={300} />}
      {hints.length > 0 && <span className="mono">{hints.join(' · ')}</span>}
    </span>
  );
}
