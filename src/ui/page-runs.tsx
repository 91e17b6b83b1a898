/**
 * The panels' view of the page-wide run claim (src/page/run-gate.ts): which run holds the page, the notes that say
 * why a panel's Run button is disabled (another panel runs, the URL has a bad parameter), and the Cancel beside it.
 */
import { useEffect, useState } from 'preact/hooks';
import { pageRuns } from '../page/run-gate.ts';
import { CancelButton } from './CancelButton.tsx';

/** What holds the page now (null: nothing runs); re-renders the component on each change. */
export function usePageRun(): string | null {
  const [owner, setOwner] = useState<string | null>(pageRuns.owner);
  useEffect(() => {
    setOwner(pageRuns.owner);
    return pageRuns.subscribe(setOwner);
  }, []);
  return owner;
}

/** The line shown when a second run is refused because `owner` holds the page. */
export function refusedLine(owner: string | null): string {
  return `Another run is in progress (${owner ?? 'a run'}): one run at a time on this page, so timings are not shared with another run. Wait for it to end or cancel it.`;
}

/**
 * The note beside a panel's Run button while another panel's run holds the page.
 * @param props.owner what holds the page (from usePageRun)
 * @param props.ownBusy this panel's own run is the one in progress (no note then)
 * @param props.testId the note's data-testid
 */
export function PageBusyNote(props: { owner: string | null; ownBusy: boolean; testId: string }) {
  if (props.owner === null || props.ownBusy) return null;
  return (
    <span class="note" data-testid={props.testId}>
      Disabled while another run is in progress ({props.owner}): one run at a time on this page.
    </span>
  );
}

/**
 * The note beside a panel's Run button while the page's URL holds a bad parameter: every panel is disabled, since a
 * run would not be the one the URL asked for (the banner at the top names each bad parameter).
 * @param props.errors the URL's parameter errors (none: no note)
 * @param props.testId the note's data-testid
 */
export function BadParamsNote(props: { errors: readonly string[]; testId: string }) {
  if (props.errors.length === 0) return null;
  return (
    <span class="note" data-testid={props.testId}>
      Disabled: the page's URL has {props.errors.length === 1 ? 'a bad parameter' : `${props.errors.length} bad parameters`} ({props.errors.join('; ')}). Fix
      or remove {props.errors.length === 1 ? 'it' : 'them'} and reload.
    </span>
  );
}

/**
 * A live region (announced by screen readers, not shown) that says when any panel's run starts and ends; the new
 * result then takes the focus and says ok or failed itself.
 */
export function RunAnnouncer() {
  const owner = usePageRun();
  const [message, setMessage] = useState('');
  const [last, setLast] = useState<string | null>(null);
  useEffect(() => {
    if (owner !== null) {
      setLast(owner);
      setMessage(`Running: ${owner}. Run buttons are disabled until it ends.`);
    } else if (last !== null) {
      setMessage(`Ended: ${last}. The result follows.`);
    }
  }, [owner]);
  return (
    <p class="offscreen" role="status" aria-live="polite" data-testid="run-announcer">
      {message}
    </p>
  );
}

/**
 * What stands beside every panel's Run button: its Cancel, and the note saying why the button is disabled (another
 * run holds the page, or the URL has a bad parameter).
 * @param props.run the panel's run
 * @param props.prefix the panel's test-id prefix (`cmp` gives `cmp-cancel`, `cmp-page-busy`, `cmp-bad-params`)
 * @param props.paramErrors the URL's bad parameters
 */
export function RunSideButtons(props: {
  run: { cancel: (() => void) | null; owner: string | null; busy: boolean };
  prefix: string;
  paramErrors?: readonly string[];
}) {
  const { run, prefix } = props;
  return (
    <>
      <CancelButton onCancel={run.cancel} testId={`${prefix}-cancel`} />
      <PageBusyNote owner={run.owner} ownBusy={run.busy} testId={`${prefix}-page-busy`} />
      <BadParamsNote errors={props.paramErrors ?? []} testId={`${prefix}-bad-params`} />
    </>
  );
}
