// Markdown escaping: a string from a run (an imported document's hostname, configuration name, warning,
// parameter) stays text in every context it lands in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mdCell, mdCode, mdFence, mdLine, mdText } from '../src/report/escape.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderCompareMarkdown } from '../src/report/compare.js';
import type { RunDocument } from '../src/document/run.js';

const fixture = (name: string): RunDocument => JSON.parse(readFileSync(new URL(`./fixtures/report/${name}.json`, import.meta.url), 'utf8')) as RunDocument;

const HOSTILE = 'x\n```\n<img src=x onerror=alert(1)>\n# heading\n| a | b |';

/** The text outside fenced code blocks (a fence closes only with a line of at least as many backticks). */
function outsideFences(md: string): string {
  const out: string[] = [];
  let open: string | null = null;
  for (const l of md.split('\n')) {
    const m = /^(`{3,})/.exec(l);
    if (open === null && m) open = m[1]!;
    else if (open !== null && m && /^`+\s*$/.test(l) && m[1]!.length >= open.length) open = null;
    else if (open === null) out.push(l);
  }
  assert.equal(open, null, 'every code block is closed');
  return out.join('\n');
}

/** A line without its inline code spans (a span closes with a run of exactly as many backticks). */
const withoutCodeSpans = (s: string) => s.replace(/(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, '');

test('mdText: one line, no HTML, no markup; mdLine: no block start either', () => {
  assert.equal(mdText('a\nb\r\nc\td'), 'a b c d');
  assert.equal(mdText('<b>&'), '&lt;b&gt;&amp;');
  assert.equal(mdText('*x* _y_ `z` [l](u) ![i][r] ~~s~~ \\'), '\\*x\\* \\_y\\_ \\`z\\` [l\\](u) ![i\\][r] \\~\\~s\\~\\~ \\\\');
  assert.equal(mdText('412 [405–420]'), '412 [405–420]');
  assert.equal(mdText('1.06×'), '1.06×');
  for (const start of ['# h', '- l', '+ l', '1. n', '2) n', '=== ']) assert.ok(mdLine(start).startsWith('\\'), start);
  assert.equal(mdLine('> q'), '&gt; q');
  assert.equal(mdLine('-0.5 is negative'), '\\-0.5 is negative');
  assert.equal(mdText('-0.5'), '-0.5');
  assert.equal(mdText('plain text 1.5'), 'plain text 1.5');
});

test('mdCell: also no pipe', () => {
  assert.equal(mdCell('a|b\nc'), 'a\\|b c');
});

test('mdCode: a span longer than any backtick run inside, on one line', () => {
  assert.equal(mdCode('{"a":1}'), '`{"a":1}`');
  assert.equal(mdCode('a`b'), '``a`b``');
  assert.equal(mdCode('``x'), '``` ``x ```');
  assert.equal(mdCode('a\nb'), '`a b`');
});

test('mdFence: no line of the body can close the block', () => {
  const body = 'one\n```\ntwo\n````html\n<script>';
  const block = mdFence('text', body);
  const lines = block.split('\n');
  assert.equal(lines[0], '`````text');
  assert.equal(lines.at(-1), '`````');
  assert.equal(lines.slice(1, -1).join('\n'), body, 'the body verbatim');
  for (const l of lines.slice(1, -1)) assert.ok(!/^`{5,}\s*$/.test(l));
  assert.equal(mdFence('te`xt', 'a').split('\n')[0], '```', 'an info string that is not a plain word is dropped');
});

test('a hostile hostname, configuration name, warning and parameter cannot leave their context', () => {
  const doc = fixture('spawn');
  doc.machine = { ...doc.machine, hostname: HOSTILE };
  doc.warnings = [{ code: HOSTILE, message: HOSTILE }];
  doc.params = { ...doc.params, note: 'a`b\n```\n<script>' };
  for (const c of doc.configurations) if (c.method === 'fork-exec') c.method = `fork\n\`\`\`\n<script>alert(1)</script>`;
  const md = renderMarkdown(doc);
  const text = outsideFences(md);
  assert.ok(!/<(img|script)/i.test(withoutCodeSpans(text)), 'no raw HTML outside code');
  const headings = text.split('\n').filter((l) => l.startsWith('#'));
  assert.ok(
    headings.every((l) => /^#{2,3} \S/.test(l) && !/^#+ heading/.test(l)),
    headings.join('\n'),
  );
  assert.equal(md.match(/^`{3,}text$/gm)?.length, 2, 'one chart block per THP mode, each still open at its fence');
  const cmp = renderCompareMarkdown(doc, fixture('spawn-b'), [HOSTILE, 'B']);
  assert.ok(!/<(img|script)/i.test(withoutCodeSpans(outsideFences(cmp))));
  assert.ok(!cmp.split('\n').some((l) => /^#+ heading/.test(l) || /^`{3,}/.test(l)));
});
