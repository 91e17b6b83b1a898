/**
 * A JSON syntax error described without quoting the file: V8's JSON.parse messages quote the text around the error
 * (`Unexpected token 'h', "hello world" is not valid JSON`), and such a message would carry a file's content, even
 * terminal escapes, into terminal output and committed summaries. Only the position survives, as line and column.
 */

/**
 * What is wrong with `text` as JSON, in words that hold none of its content.
 * @param error what JSON.parse threw
 * @param text the text it was given (to turn V8's character position into a line and column)
 */
export function jsonSyntaxProblem(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : '';
  if (/Unexpected end of JSON input/.test(message)) return 'ends before the JSON value is complete';
  const position = /at position (\d+)/.exec(message);
  if (position === null) return 'syntax error';
  const offset = Math.min(Number(position[1]), text.length);
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `syntax error at line ${line}, column ${offset - lineStart + 1}`;
}
