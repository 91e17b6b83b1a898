import type { ComponentChildren } from 'preact';
import { useFocusOnMount } from './focus.ts';

function Focused(props: { class?: string; testId: string; outcome?: string; children: ComponentChildren }) {
  const ref = useFocusOnMount<HTMLDivElement>();
  return (
    <div ref={ref} tabIndex={-1} class={props.class} data-testid={props.testId} data-outcome={props.outcome}>
      {props.children}
    </div>
  );
}

/**
 * A run's result block: each new result (a new `resultKey`) takes the focus when it appears, so a keyboard or
 * screen-reader user lands on it when the run ends instead of on the page's body.
 * @param props.resultKey the result's identity (a receipt id): a new key is a new result
 */
export function ResultRegion(props: {
  resultKey: string;
  class?: string;
  testId: string;
  outcome?: string;
  children: ComponentChildren;
}) {
  const { resultKey, ...rest } = props;
  return <Focused key={resultKey} {...rest} />;
}
