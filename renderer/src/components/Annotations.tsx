/**
 * A content block's (or resource's) annotations as chips: audience, priority, lastModified
 * (local time; the ISO text on hover), and anything else the server put there, raw.
 */
import { Badge, Group, Tooltip } from '@mantine/core';
import { knownAudience, localTime, priorityLabel, readAnnotations } from './annotations';

export function AnnotationChips({ annotations, testId = 'annotations' }: { annotations: unknown; testId?: string }) {
  const read = readAnnotations(annotations);
  if (!read) return null;
  return (
    <Group gap={4} wrap="wrap" data-testid={testId} style={{ minWidth: 0 }}>
      {read.audience && (
        <Tooltip label="audience: who this content is meant for" openDelay={300}>
          <Badge size="xs" variant="light" color="blue" style={{ textTransform: 'none' }} data-testid="annotation-audience">
            for {read.audience.length === 0 ? 'nobody (empty audience)' : read.audience.map((r) => (knownAudience(r) ? r : `${r} (unknown role)`)).join(' + ')}
          </Badge>
        </Tooltip>
      )}
      {read.priority !== undefined && (
        <Tooltip label={read.priorityOutOfRange ? 'priority should be between 0 and 1' : 'priority: 0 = least important, 1 = most important'} openDelay={300}>
          <Badge size="xs" variant="light" color={read.priorityOutOfRange ? 'orange' : 'grape'} style={{ textTransform: 'none' }} data-testid="annotation-priority">
            priority {priorityLabel(read.priority)}
            {read.priorityOutOfRange ? ' · out of range' : ''}
          </Badge>
        </Tooltip>
      )}
      {read.lastModified && (
        <Tooltip label={`lastModified: ${read.lastModified.iso}`} openDelay={300}>
          <Badge size="xs" variant="light" color={read.lastModified.ms === null ? 'orange' : 'teal'} style={{ textTransform: 'none' }} data-testid="annotation-modified" data-iso={read.lastModified.iso}>
            {read.lastModified.ms === null ? `modified ${read.lastModified.iso.slice(0, 40)} (not a date)` : `modified ${localTime(read.lastModified.ms)}`}
          </Badge>
        </Tooltip>
      )}
      {read.other.map((o) => (
        <Tooltip key={o.key} label={`${o.key}: ${o.value}`} openDelay={300} multiline maw={420}>
          <Badge size="xs" variant="outline" color="gray" style={{ textTransform: 'none', maxWidth: 260 }} data-testid="annotation-other">
            {o.key}: {o.value.slice(0, 40)}
          </Badge>
        </Tooltip>
      ))}
    </Group>
  );
}
