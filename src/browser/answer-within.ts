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
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new NoAnswerError(`${what} did not answer within ${limitMs} ms`)), limitMs);
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
