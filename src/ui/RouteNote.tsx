import type { RouteChoiceNote } from '../core/automation/route-choice.ts';

/**
 * A panel's line about its route choice, under its controls and before its Run button
 * (src/core/automation/route-choice.ts): an error when the run cannot work as chosen, a warning otherwise.
 * @param props.note the note (null: nothing is shown)
 * @param props.testId the line's data-testid
 */
export function RouteNote(props: { note: RouteChoiceNote | null; testId: string }) {
  const { note } = props;
  if (note === null) return null;
  return (
    <p class={note.blocks ? 'error route-note' : 'warn route-note'} role="status" data-testid={props.testId}>
      {note.line}
    </p>
  );
}
