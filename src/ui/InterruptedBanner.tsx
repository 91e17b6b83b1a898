import type { InterruptedRun } from '../core/field/journal.ts';
import { interruptedRunMessage } from '../core/field/journal.ts';

/**
 * Shown when the page loads and the run journal holds a run that never finished (the tab was killed or reloaded
 * mid-run). On iPhones this is usually the out-of-memory signal. The next receipt records it.
 * @param props.run the interrupted run found at load, or null (renders nothing)
 */
export function InterruptedBanner(props: { run: InterruptedRun | null }) {
  if (props.run === null) return null;
  return (
    <p class="banner warn" data-testid="interrupted-banner" data-drb-interrupted-stage={props.run.stage}>
      {interruptedRunMessage(props.run)} The next receipt records this as <code>previous_run_interrupted</code>.
    </p>
  );
}
