import { failureAdvice, type FailurePanel } from '../core/engines/failure-advice.ts';

/**
 * The next step under a failure, in the words of the panel it is shown in (src/core/engines/failure-advice.ts); nothing when
 * there is no advice beyond the reason.
 * @param props.reason the failure's reason
 * @param props.panel where it is shown
 * @param props.testId the line's data-testid
 * @param props.alternative ", for example <model id>": a model of the panel's list that can run here
 */
export function FailureAdvice(props: {
  reason: string | null;
  panel: FailurePanel;
  testId: string;
  alternative?: string;
}) {
  const advice = props.reason === null ? null : failureAdvice(props.reason, props.panel, props.alternative);
  if (advice === null) return null;
  return (
    <p class="advice" data-testid={props.testId}>
      What to do: {advice}
    </p>
  );
}
