// Text that fits a terminal: at most outputColumns() columns (100 by default; `--wide` lifts the limit, a
// narrower terminal lowers it). Long lines wrap at spaces with a hanging indent; a word longer than the line
// (a path) is cut. Widths are terminal columns (src/text/columns.ts: a CJK character takes two, a combining
// mark none); ANSI colour sequences are kept and not counted. A text primitive every layer may use.
import { charColumns, columnsOf } from './columns.js';

/** The default width of what forklab prints for a person to read. */
export const DEFAULT_COLUMNS = 100;
/** Below this a terminal's width is not followed (tables would fold into one value per line). */
const MIN_COLUMNS = 60;

let columns = DEFAULT_COLUMNS;

/** The width printed text must fit; Infinity with --wide. */
export function outputColumns(): number {
  return columns;
}

/** Sets the width: `wide` (--wide) lifts it; else 100, or the terminal's width when it is narrower (at least 60). */
export function setOutputColumns(o: { wide?: boolean; terminalColumns?: number }): void {
  if (o.wide) columns = Number.POSITIVE_INFINITY;
  else if (o.terminalColumns && o.terminalColumns > 0) columns = Math.max(MIN_COLUMNS, Math.min(DEFAULT_COLUMNS, o.terminalColumns));
  else columns = DEFAULT_COLUMNS;
}

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
const ANSI_AT_START = new RegExp(`^${ESC}\\[[0-9;]*m`);

/** Columns a string takes on a terminal (East Asian wide characters two, combining marks none), colour sequences not counted. */
export function visibleWidth(s: string): number {
  return columnsOf(s.replace(ANSI, ''));
}

/**
 * The first `n` visible columns of a word and the rest (colour sequences go with the part they are in). A wide
 * character that would straddle column `n` goes to the rest, unless it is the first (a part is never empty);
 * combining marks stay with the character they are drawn on.
 */
export function cut(word: string, n: number): [string, string] {
  let seen = 0;
  let i = 0;
  while (i < word.length) {
    if (word[i] === ESC) {
      const m = ANSI_AT_START.exec(word.slice(i));
      if (m) {
        if (seen >= n) break;
        i += m[0].length;
        continue;
      }
    }
    const ch = String.fromCodePoint(word.codePointAt(i)!);
    const w = charColumns(ch);
    if (w > 0 && seen > 0 && seen + w > n) break;
    i += ch.length;
    seen += w;
  }
  return [word.slice(0, i), word.slice(i)];
}

/** `s` padded with spaces on the right to `width` columns. */
export function padColumns(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - visibleWidth(s)));
}

/** At most `n` columns of `s`: its end, led by "…" when cut (a path's file name matters more than its start). */
export function endColumns(s: string, n: number): string {
  if (visibleWidth(s) <= n) return s;
  const chars = [...s];
  let seen = 1; // the ellipsis
  let i = chars.length;
  while (i > 0 && seen + charColumns(chars[i - 1]!) <= n) seen += charColumns(chars[--i]!);
  return `…${chars.slice(i).join('')}`;
}

/** Where a line may break: a single space between words, but not inside "95 % CI", "3.6 µs" or "1024 MB". */
const BREAK = /(?<=\S)(?<!\d|\d %) (?=\S)|(?<=\d) (?!%|×|[µnm]s\b|[kMG]i?B\b|KB\b|ns\/|µs\/)(?=\S)/;

/**
 * One line as lines of at most `width` columns: broken at spaces, each continuation indented by the line's own
 * indentation plus `hang` spaces. A line that fits is returned as it is.
 */
export function wrapLine(line: string, width: number = columns, hang = 2): string[] {
  if (!Number.isFinite(width) || visibleWidth(line) <= width) return [line];
  const indent = /^ */.exec(line)![0];
  // A "label  text" line (two spaces or more after its first words) hangs under its text; others by `hang`.
  const label = /^ *\S.*?\S {2,}(?=\S)/.exec(line)?.[0];
  const column = label === undefined ? 0 : visibleWidth(label);
  const next = column > indent.length && column <= width / 2 ? ' '.repeat(column) : indent + ' '.repeat(hang);
  const words = line.slice(indent.length).split(BREAK);
  const out: string[] = [];
  let cur = indent;
  let curWidth = indent.length;
  let fresh = true;
  const room = (w: number) => Math.max(10, w);
  for (let word of words) {
    let w = visibleWidth(word);
    if (!fresh && curWidth + 1 + w > width) {
      out.push(cur);
      cur = next;
      curWidth = next.length;
      fresh = true;
    }
    // A word longer than a whole line (a path, a URL) is cut.
    while (curWidth + (fresh ? 0 : 1) + w > width && w > room(width - next.length)) {
      const take = Math.max(1, width - curWidth - (fresh ? 0 : 1));
      const [head, rest] = cut(word, take);
      out.push(cur + (fresh ? '' : ' ') + head);
      cur = next;
      curWidth = next.length;
      fresh = true;
      word = rest;
      w = visibleWidth(word);
    }
    cur += (fresh ? '' : ' ') + word;
    curWidth += (fresh ? 0 : 1) + w;
    fresh = false;
  }
  out.push(cur);
  return out.map((l) => l.trimEnd());
}

/** Every line of a text wrapped to `width` (lines that fit are left as they are). */
export function fitText(text: string, width: number = columns, hang = 2): string {
  if (!Number.isFinite(width)) return text;
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width, hang))
    .join('\n');
}
