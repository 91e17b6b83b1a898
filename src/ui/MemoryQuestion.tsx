/**
 * Protocol mode's memory question: the tester's answer, one tap, whether they saw memory trouble during the runs. It
 * is stored as a session attestation (stated, never measured) and travels in every bundle for the review.
 */
import type { SessionClaim } from '../core/receipt/attestation.ts';
import { storedSession } from '../page/stored-session.ts';

/** The tester's answer about memory trouble during the runs (a session attestation: stated, never measured). */
export function MemoryQuestion(props: { disabled: boolean }) {
  const memory: SessionClaim | null = storedSession.attestations.at(-1)?.claim ?? null;
  const answer = (claim: SessionClaim, words: string, testId: string) => (
    <button
      type="button"
      class="secondary"
      aria-pressed={memory === claim}
      data-testid={testId}
      disabled={props.disabled}
      onClick={() => void storedSession.attest(claim)}
    >
      {words}
    </button>
  );
  return (
    <div data-testid="memory-question">
      <p class="small">
        During the runs, did you see memory trouble (a memory warning, the page reloading by itself, the browser closing
        it)?{' '}
        {memory === null
          ? 'Not answered yet.'
          : memory === 'memory-pressure-seen'
            ? 'Your answer: seen.'
            : 'Your answer: none seen.'}
      </p>
      <div class="buttons">
        {answer('no-memory-pressure-seen', 'No memory trouble seen', 'memory-none')}
        {answer('memory-pressure-seen', 'I saw memory trouble', 'memory-seen')}
      </div>
    </div>
  );
}
