/**
 * A prompt's messages as the server sent them: a role chip per message, then its content
 * (text as text, images inline when they are safe raster types, audio, embedded resources,
 * resource links as plain text). Hostile input throughout.
 */
import { safeStringify } from '../../../../contract/bounded-json';
import { Alert, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { JsonTree } from '../../components/JsonTree';
import { copyText } from '../../components/download';
import { ClippedText, ContentItemView, asContentItem } from '../../components/ContentView';
import classes from '../../components/content.module.css';

type Block = Record<string, unknown>;

const ROLE_COLORS: Record<string, string> = { user: 'blue', assistant: 'grape', system: 'gray' };

export function PromptMessages({ messages }: { messages: unknown[] }) {
  if (messages.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        The prompt has no messages.
      </Text>
    );
  }
  return (
    <Stack gap="xs" data-testid="prompt-messages">
      {messages.map((message, i) => (
        <Message key={i} index={i} message={message} />
      ))}
    </Stack>
  );
}

function Message({ index, message }: { index: number; message: unknown }) {
  const m = (message && typeof message === 'object' ? message : {}) as Block;
  const role = typeof m.role === 'string' ? m.role : 'unknown';
  // One content block (the spec), or an array of them (tolerated).
  const blocks: unknown[] = Array.isArray(m.content) ? m.content : m.content !== undefined ? [m.content] : [];
  return (
    <Paper withBorder p="xs" radius="sm" data-testid="prompt-message" data-role={role}>
      <Stack gap={6}>
        <Group gap="xs">
          <Badge size="sm" variant="filled" color={ROLE_COLORS[role] ?? 'orange'} style={{ textTransform: 'none' }} data-testid="prompt-role">
            {role.slice(0, 40)}
          </Badge>
          <Text size="xs" c="dimmed">
            message {index + 1}
          </Text>
        </Group>
        {blocks.map((block, i) => (
          <ContentBlock key={i} block={block} />
        ))}
      </Stack>
    </Paper>
  );
}

function ContentBlock({ block }: { block: unknown }) {
  const b = (block && typeof block === 'object' ? block : {}) as Block;
  switch (b.type) {
    case 'text':
      if (typeof b.text === 'string') return <TextBlock text={b.text} />;
      break;
    case 'image':
    case 'audio':
      if (typeof b.data === 'string') return <ContentItemView item={{ mimeType: typeof b.mimeType === 'string' ? b.mimeType : undefined, blob: b.data }} testId="prompt-content" />;
      break;
    case 'resource': {
      const item = asContentItem(b.resource);
      if (item)
        return (
          <Stack gap={4}>
            <Text size="xs" c="dimmed">
              Embedded resource
            </Text>
            <ContentItemView item={item} testId="prompt-content" />
          </Stack>
        );
      break;
    }
    case 'resource_link':
      if (typeof b.uri === 'string')
        return (
          <Alert variant="light" color="gray" p="xs" data-testid="prompt-resource-link">
            <Text size="xs" c="dimmed">
              Resource link{typeof b.name === 'string' ? ` · ${b.name.slice(0, 200)}` : ''}
              {typeof b.mimeType === 'string' ? ` · ${b.mimeType.slice(0, 80)}` : ''}
            </Text>
            <Text size="sm" className={`mono ${classes.hostile}`}>
              {b.uri.slice(0, 4000)}
            </Text>
            {typeof b.description === 'string' && (
              <Text size="xs" className={classes.hostile}>
                {b.description.slice(0, 2000)}
              </Text>
            )}
          </Alert>
        );
      break;
  }
  return (
    <Alert variant="light" color="orange" p="xs" title={`Content of type ${safeStringify(String(b.type ?? 'unknown')).slice(0, 60)} (shown as data)`}>
      <JsonTree value={block} />
    </Alert>
  );
}

function TextBlock({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div style={{ position: 'relative' }}>
      <ClippedText text={text} testId="prompt-text" style={{ paddingRight: 64 }} />
      <Button
        size="compact-xs"
        variant="default"
        style={{ position: 'absolute', top: 6, right: 6 }}
        onClick={() =>
          void copyText(text).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1200);
          })
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </Button>
    </div>
  );
}
