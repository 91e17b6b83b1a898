/**
 * The one escaping rule for text a command prints to a terminal, and for names it stores in JSON it writes (file
 * names in summary.json): every character that could move the cursor, start an escape or OSC sequence, end a line
 * or show text in another order than it is stored becomes a visible escape. C0 controls (newline, bare CR, tab,
 * ESC ...), DEL, C1 controls (the 8-bit CSI and OSC), the Unicode line and paragraph separators and the bidirectional
 * marks, embeddings, overrides and isolates: `\n`, `\r`, `\t`, `\x1b`, `\u202e`. A name shown this way is always
 * one line of text that reads as the characters it holds; it is for showing, never for opening the file again.
 */

// C0, DEL and C1 controls; U+2028/U+2029 (line and paragraph separators); bidi marks (U+061C, U+200E, U+200F),
// embeddings and overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** True when `text` holds a character `terminalText` would escape. */
export function hasUnsafeTerminalChar(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return found;
}

/**
 * `text` with every control, line-separator and bidirectional character as a visible escape (see the module comment).
 * @param text any string from an input, a file name or a flag
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named !== undefined) return named;
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A value the user typed or a file held, quoted for a message: JSON's quoting (so `"` and C0 controls read as
 * `\"` and `\u001b`), then the terminal rule for what JSON leaves raw (C1 controls, line separators, bidirectional
 * characters). Use it instead of JSON.stringify alone, which keeps bidirectional overrides as they are.
 * @param text the value
 * @param maxChars longer values are cut first (with an ellipsis) so one line stays one readable line
 */
export function quotedText(text: string, maxChars = 200): string {
  return terminalText(JSON.stringify(text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`));
}

/**
 * Every line of a message escaped on its own, the line breaks between them kept: for a message already made of
 * lines (`first\nerror: second`) whose parts may still hold a stranger's characters. A bare CR is escaped.
 * @param message one or more lines joined by `\n`
 */
export function terminalLines(message: string): string {
  return message
    .split('\n')
    .map((line) => terminalText(line))
    .join('\n');
}
