/** What other views use from Resources: the content, annotation and read-result views, the grouped list, completion, formatters and styles. */
export { AnnotationChips } from './Annotations';
export { formatBytes } from './binary';
export { CompletionInput } from './CompletionInput';
export { ClippedText, ContentItemView, asContentItem } from './ContentView';
export { plural } from './format';
export { GroupedList, type ListGroup } from './GroupedList';
export { ReadResultView, type ReadOutcome } from './ReadResultView';
export { default as resourceClasses } from './resources.module.css';
