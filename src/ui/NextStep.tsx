/**
 * The line that ends a result: what to do next with what the panel just made, with the actual command where there is
 * one (the file names are the ones the panel's buttons save under).
 */
import type { ComponentChildren } from 'preact';

/**
 * @param props.testId the line's data-testid
 * @param props.children what to do (text)
 * @param props.command the command to run, shown as code (absent: none)
 */
export function NextStep(props: { testId: string; children: ComponentChildren; command?: string }) {
  return (
    <div class="next-step" data-testid={props.testId}>
      <p>
        <strong>Next:</strong> {props.children}
      </p>
      {props.command && (
        <pre>
          <code>{props.command}</code>
        </pre>
      )}
    </div>
  );
}
