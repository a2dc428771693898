// Escaping for GitHub-flavoured Markdown, one helper per context a string can land in. Every string that comes
// from a run (hostnames, configuration names, warnings, parameters — imported documents included) goes
// through one of these, so that it stays text: it cannot end a code fence, break a table, start a heading or a
// list, or become raw HTML.

/** Line breaks and other control characters (tabs included) become one space each. */
function oneLine(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
  return s.replace(/\r\n|[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, ' ');
}

/** Characters that Markdown would read as HTML or as an entity: written as entities. */
function entities(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Markdown punctuation that starts emphasis, code or strikethrough, backslash-escaped; a closing bracket that
 * would make a link or an image ("](", "][", "]:") too. Other brackets stay as they are: "412 [405–420]".
 */
function punctuation(s: string): string {
  return s.replace(/[\\`*_~]/g, (c) => `\\${c}`).replace(/\](?=[([:])/g, '\\]');
}

/** Text inside a line (a heading, a list item, emphasis, a table cell): one line, no HTML, no emphasis, code or link markup. */
export function mdText(s: string): string {
  return punctuation(entities(oneLine(s)));
}

/** Text that starts a line of its own (a paragraph): as mdText, and nothing at its start that would make it a heading, a quote, a list or a rule. */
export function mdLine(s: string): string {
  return mdText(s).replace(/^(\s*)([#+=-]|\d+[.)](?=\s|$))/, (_, sp: string, m: string) => `${sp}\\${m}`);
}

/** A table cell: text as above, and no pipe that would end the cell. */
export function mdCell(s: string): string {
  return mdText(s).replace(/\|/g, '\\|');
}

/** An inline code span holding s verbatim on one line: delimited by more backticks than any run inside it. */
export function mdCode(s: string): string {
  const body = oneLine(s);
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || body === '' ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * A fenced code block holding `body` verbatim: the fence is longer than any run of backticks in the body, so no
 * line of it can close the block early; `info` (the language) is restricted to a plain word.
 */
export function mdFence(info: string, body: string): string {
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const lang = /^[A-Za-z0-9+-]*$/.test(info) ? info : '';
  return `${fence}${lang}\n${body.replace(/\r\n?/g, '\n')}\n${fence}`;
}
