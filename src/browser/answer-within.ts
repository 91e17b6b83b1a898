/**
 * A browser API call that may never answer (a WebGPU adapter request on a broken driver, a storage estimate in a
 * locked-down profile), given a time limit: the probes that record capabilities must finish, and say when a call
 * did not answer, rather than hold a run at its first stage.
 */

/** The error a call that did not answer in time rejects with. */
export class NoAnswerError extends Error {
  override name = 'NoAnswerError';
}

/**
 * Resolves as `call` does, or rejects with a NoAnswerError after `limitMs`.
 * @param call the pending call
 * @param limitMs how long to wait, in ms
 * @param what the call's name, for the message ("requestAdapter")
 */
export function answerWithin<T>(call: Promise<T>, limitMs: number, what: string): Promise<T> {
  return withinLimit(call, limitMs, () => new NoAnswerError(`${what} did not answer within ${limitMs} ms`));
}

/**
 * Resolves as `call` does, or rejects with `overrun()`'s error after `limitMs` (the one timer every time limit of
 * the page uses: probe calls here, page-side run stages in src/page/worker-bridge.ts).
 * @param call the pending work
 * @param limitMs how long to wait, in ms
 * @param overrun the error to reject with when the limit passes
 */
export function withinLimit<T>(call: Promise<T>, limitMs: number, overrun: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(overrun()), limitMs);
    call.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
