// The claims engine's notes as a reader says them: document keys become words and units (rssMb=1024 → rss 1024 MB).
import { baseWords, keyValueWords, words } from '../text/words.js';

/**
 * A note in words: document keys as a reader says them. "method=fork-exec,thp=off was measured at 2 values of
 * rssMb" → "method fork-exec, thp off was measured at 2 values of rss (MB)".
 */
export function inWords(text: string): string {
  return text
    .replace(/\b([a-z][A-Za-z0-9]*)=([^\s,;()[\]]+),(?=[a-z][A-Za-z0-9]*=)/g, '$1=$2, ')
    .replace(/\b([a-z][A-Za-z0-9]*)=([^\s,;()[\]]+)/g, (_, k: string, v: string) => keyValueWords(k, v))
    .replace(/\b([a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)\b/g, (k: string) => (/(Kb|Mb|Bytes|Ns|Ms)$/.test(k) ? words(k) : baseWords(k)));
}
