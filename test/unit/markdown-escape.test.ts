import { describe, expect, it } from 'vitest';
import { htmlText, mdCode, mdFence, mdText } from '../../src/core/text/markdown-escape.ts';

describe('mdText: inline text that renders as its own characters', () => {
  it.each([
    ['ort-tiny-xenc', 'ort-tiny-xenc'],
    ['webllm-qwen2.5-0.5b-instruct-q4f16_1', 'webllm-qwen2.5-0.5b-instruct-q4f16_1'],
    // A newline that would start a forged heading, and HTML that would run.
    ['m\n## Evidence: **DEVICE_PASS**', 'm \\#\\# Evidence: \\*\\*DEVICE_PASS\\*\\*'],
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    // A pipe adds a cell; a lone CR splits a table row in CommonMark.
    ['a | b\rc', 'a \\| b c'],
    ['x\r\n| forged | row |', 'x \\| forged \\| row \\|'],
    [
      '`code` [link](javascript:alert(1)) ~~gone~~ $x$',
      '\\`code\\` \\[link\\](javascript:alert(1)) \\~\\~gone\\~\\~ \\$x\\$',
    ],
    ['_emph_ and snake_case', '\\_emph\\_ and snake_case'],
    ['a\\|b', 'a\\\\\\|b'],
    ['&lt; stays text', '&amp;lt; stays text'],
    ['tab\there\u2028sep\u0085nel', 'tab here sep nel'],
    ['esc\u001b[31mred\u202eevil', 'esc\uFFFD\\[31mred\uFFFDevil'],
  ])('%j -> %j', (input, expected) => {
    expect(mdText(input)).toBe(expected);
  });

  it('never leaves a line break, a raw <, > or an unescaped pipe in its output', () => {
    let all = '';
    for (let code = 0; code < 0x3000; code++) all += String.fromCharCode(code);
    const out = mdText(all);
    expect(out).not.toMatch(/[\r\n\u2028\u2029<>]/);
    expect(out).not.toMatch(/(^|[^\\])\|/);
  });
});

describe('mdCode: a code span the text cannot leave', () => {
  it.each([
    ['plain', '`plain`'],
    ['a`b', '``a`b``'],
    ['``x```', '```` ``x``` ````'],
    ['`', '`` ` ``'],
    [' spaced ', '`  spaced  `'],
    ['', '` `'],
    ['<b>html stays literal</b>', '`<b>html stays literal</b>`'],
    ['line\nbreak', '`line break`'],
  ])('%j -> %j', (input, expected) => {
    expect(mdCode(input)).toBe(expected);
  });

  it('escapes pipes only inside a table cell', () => {
    expect(mdCode('a|b', { inTable: true })).toBe('`a\\|b`');
    expect(mdCode('a|b')).toBe('`a|b`');
  });
});

describe('mdFence: a fenced block no body line can close', () => {
  it('uses three backticks for plain text and a longer fence than any run inside', () => {
    expect(mdFence('npx drb score', 'sh')).toEqual(['```sh', 'npx drb score', '```']);
    expect(mdFence("npx drb score --items 'a\n```\n# forged'", 'sh')).toEqual([
      '````sh',
      "npx drb score --items 'a",
      '```',
      "# forged'",
      '````',
    ]);
    expect(mdFence('a\rb')).toEqual(['```', 'a', 'b', '```']);
  });
});

describe('htmlText: element text and quoted attribute values of an HTML page', () => {
  it.each([
    ['ort-tiny-xenc', 'ort-tiny-xenc'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    // Out of a double- or single-quoted attribute, and an entity that must stay text.
    ['x" onmouseover="alert(1)', 'x&quot; onmouseover=&quot;alert(1)'],
    ["'><svg onload=alert(3)>&amp;", '&#39;&gt;&lt;svg onload=alert(3)&gt;&amp;amp;'],
    // Terminal escapes and bidirectional overrides display as U+FFFD; Markdown punctuation is plain text here.
    ['a\u001b[31mb\u202ec', 'a\uFFFD[31mb\uFFFDc'],
    ['| **x** `y`', '| **x** `y`'],
  ])('%j -> %j', (input, expected) => {
    expect(htmlText(input)).toBe(expected);
  });
});
