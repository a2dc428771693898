// The articles introduced in words: which article "000" is (its title in its language and in English, the
// series and part), and what it measured with, as the article states it.
import type { Article, Language } from './types.js';

const LANGUAGE_NAMES: Record<Language, string> = { vi: 'Vietnamese', zh: 'Chinese' };

/** "part 46 of 50 of “Hiệu năng Linux cho lập trình viên” (Linux performance for programmers)", or null. */
function seriesText(a: Article): string | null {
  const s = a.series;
  if (s === null) return null;
  const part = s.part !== null ? `part ${s.part}${s.of !== null ? ` of ${s.of}` : ''}` : null;
  const name = s.name !== null ? `“${s.name}”${s.nameEn ? ` (${s.nameEn})` : ''}` : s.nameEn;
  if (part && name) return `${part} of ${s.name !== null ? 'the series ' : ''}${name}`;
  if (part) return `${part} of a series`;
  if (name) return `in the series ${name}`;
  return `one of a series (“${s.statedEn}”)`;
}

/** "Docker, debian:bookworm-slim …; gcc 12; kernel not stated". */
function measuredWithText(a: Article): string {
  const m = a.measuredWith;
  const parts = [m.container ? `container ${m.container}` : null, m.compiler, m.cpu, m.kernel ? `kernel ${m.kernel}` : 'kernel not stated'];
  return parts.filter((x): x is string => x !== null).join('; ');
}

/** One line naming the article: `000 “Ba cách …” (Three ways to start a process), Vietnamese`. */
function articleName(a: Article): string {
  const heading = a.titleSource === 'first-heading' ? '; its first heading, the text has no title' : '';
  return `${a.id} “${a.title}” (${a.titleEn}${heading}), ${LANGUAGE_NAMES[a.language]}`;
}

/** Two sentences introducing the article: its name, series, author and date, and what it measured with. */
export function articleIntro(a: Article): string {
  const by = [a.author ? `by ${a.author}` : null, a.published ? `published ${a.published}` : null].filter(Boolean).join(', ');
  const series = seriesText(a);
  return `Article ${articleName(a)}${series ? `; ${series}` : ''}${by ? `; ${by}` : ''}. Measured with: ${measuredWithText(a)}.`;
}
