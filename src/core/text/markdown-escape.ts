/**
 * Escaping for every string that reaches a Markdown file or an HTML page from an input (a receipt, an items or
 * predictions file, a file name, a flag). Committed Markdown (summary.md, score and compare reports) is read on forges that render it
 * as CommonMark/GFM with inline HTML, so a string must neither change the document's structure (a new line that
 * starts a heading or a table row, a pipe that adds a cell, a backtick that ends a code span) nor carry markup
 * (emphasis, links, images, raw HTML such as `<img onerror>`).
 *
 * Four contexts, one function each:
 * - `mdText`: inline text anywhere (paragraph, list item, heading, table cell);
 * - `mdCode`: an inline code span (pass `inTable` inside a GFM table, where a pipe must be escaped even in code);
 * - `mdFence`: a fenced code block (a shell command that names user files);
 * - `htmlText`: text and quoted attribute values of an HTML page (the receipts report).
 * Written by hand: the rules are a few lines of the CommonMark and GFM specs (backslash escapes, code spans, fenced
 * code blocks, tables), and a Markdown library would only be used for this.
 */

// Line breaks CommonMark knows (LF, CR: a lone CR ends a line too) plus the Unicode ones that renderers and
// editors also break on: each becomes a space so a value always stays on its own line.
const LINE_BREAKS = /\r\n|[\n\r\u0085\u2028\u2029]/g;
// Control characters (terminal escapes, NUL, ...) and the bidirectional overrides that make text display in
// another order than it is stored ("Trojan Source"): shown as U+FFFD, never passed through.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** One line of plain text: line breaks become spaces, tabs a space, control and bidi characters U+FFFD. */
export function mdOneLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(/\t/g, ' ').replace(CONTROLS, '\uFFFD');
}

// Markdown punctuation that can start or end markup inline, escaped with a backslash (CommonMark: any ASCII
// punctuation may be backslash-escaped). `#` for a heading's closing sequence, `|` for GFM table cells, `$` for
// the math spans some forges render, `~` for GFM strikethrough. `_` is handled apart (see below).
const MARKDOWN_PUNCTUATION = /[\\`*[\]|~#$]/;
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const ALNUM = /[\p{L}\p{N}]/u;

/**
 * `text` as inline Markdown that renders exactly as the characters it holds, on one line: safe in a paragraph, a
 * list item, a heading and a GFM table cell. `&`, `<` and `>` become HTML entities (no raw HTML, no autolink in
 * angle brackets); Markdown punctuation is backslash-escaped; an underscore between two letters or digits is left
 * as it is (CommonMark never reads it as emphasis there), so identifiers such as `q4f16_1` stay readable.
 * @param text any string from an input
 */
export function mdText(text: string): string {
  const line = mdOneLine(text);
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    const entity = HTML_ENTITIES[ch];
    if (entity !== undefined) out += entity;
    else if (MARKDOWN_PUNCTUATION.test(ch)) out += `\\${ch}`;
    else if (ch === '_') out += ALNUM.test(line[i - 1] ?? '') && ALNUM.test(line[i + 1] ?? '') ? '_' : '\\_';
    else out += ch;
  }
  return defuseLinks(out);
}

/**
 * Breaks what a GFM renderer would turn into a link by itself (extended autolinks: `https://host`, `www.host`, an
 * e-mail address, `mailto:`/`xmpp:`), the usual "defanged" way: `https[:]//host`, `www[.]host`, `a[@]b.c`. The text
 * still reads as what it holds; no renderer makes a link of it. Runs on escaped text (the brackets it adds are
 * escaped, so they show as brackets).
 */
function defuseLinks(escaped: string): string {
  return escaped
    .replace(/([A-Za-z][A-Za-z0-9+.-]*):(?=\/\/)/g, '$1\\[:\\]')
    .replace(/\b(mailto|xmpp):/gi, '$1\\[:\\]')
    .replace(/\b(www)\./gi, '$1\\[.\\]')
    .replace(/([A-Za-z0-9._+-])@(?=[A-Za-z0-9\\_-]+\.)/g, '$1\\[@\\]');
}

/** Length of the longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const ch of text) {
    run = ch === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * `text` as an inline code span that shows every character literally, whatever backticks it holds: the span's
 * fence is one backtick longer than the longest backtick run inside (CommonMark code spans), padded with a space
 * when the text starts or ends with a backtick or a space (one space each side is stripped when rendered).
 * HTML inside a code span is literal, so nothing else is escaped, except a pipe inside a GFM table (the table
 * splits cells before it reads code spans, and `\|` is its escape there).
 * @param text any string from an input
 * @param options `inTable`: the span sits in a table cell
 */
export function mdCode(text: string, options: { inTable?: boolean } = {}): string {
  let body = mdOneLine(text);
  if (options.inTable) body = body.replace(/\|/g, '\\|');
  if (body === '') return '` `';
  const fence = '`'.repeat(longestRun(body, '`') + 1);
  const pad = /^[` ]|[` ]$/.test(body) && !/^ +$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * A fenced code block holding `body` literally: its fence is longer than any backtick run in the body, so no line
 * of the body can close it; a lone CR becomes a line break (CommonMark reads it as one anyway) and control
 * characters U+FFFD.
 * @param body the block's content (may span lines)
 * @param info the info string (a language name such as `sh`; fixed text, never input)
 * @returns the block's lines, fences included
 */
export function mdFence(body: string, info = ''): string[] {
  const text = body.replace(/\r\n?/g, '\n').replace(CONTROLS, '\uFFFD');
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return [`${fence}${info}`, ...text.split('\n'), fence];
}

// The five characters that end an HTML text run or a quoted attribute value, as entities.
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * `text` for HTML (and the inline SVG inside it): safe as element text and as a quoted attribute value. `&`, `<`,
 * `>`, `"` and `'` become entities, so no input can open a tag, close an attribute or start a script; control and
 * bidirectional-override characters become U+FFFD, as in Markdown, so a value always displays as what it holds.
 * @param text any string from an input
 */
export function htmlText(text: string): string {
  return text.replace(CONTROLS, '\uFFFD').replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);
}
