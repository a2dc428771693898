// A YAML writer for the manifests forklab prints: block style, keys in the order given, every string that a
// YAML reader could take for something else (a number, a boolean, null, text with ': ' or '#') double-quoted
// the JSON way, which YAML reads as the same string.

type Value = string | number | boolean | null | Value[] | { [k: string]: Value };

const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./=-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|y|n|null|~)$/i;

function scalar(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v !== 'string') return String(v);
  return PLAIN.test(v) && !RESERVED.test(v) ? v : JSON.stringify(v);
}

const isObj = (v: Value): v is { [k: string]: Value } => v !== null && typeof v === 'object' && !Array.isArray(v);
const empty = (v: Value) => (Array.isArray(v) ? v.length === 0 : isObj(v) && Object.keys(v).length === 0);
const emptyText = (v: Value) => (Array.isArray(v) ? '[]' : '{}');

function lines(v: Value, indent: string): string[] {
  if (Array.isArray(v)) {
    return v.flatMap((item) => {
      if ((isObj(item) || Array.isArray(item)) && !empty(item)) {
        const [first, ...rest] = lines(item, `${indent}  `);
        return [`${indent}- ${first!.slice(indent.length + 2)}`, ...rest];
      }
      return [`${indent}- ${isObj(item) || Array.isArray(item) ? emptyText(item) : scalar(item)}`];
    });
  }
  if (isObj(v)) {
    return Object.entries(v).flatMap(([k, x]) => {
      const key = scalar(k);
      if ((isObj(x) || Array.isArray(x)) && !empty(x)) return [`${indent}${key}:`, ...lines(x, Array.isArray(x) ? indent : `${indent}  `)];
      return [`${indent}${key}: ${isObj(x) || Array.isArray(x) ? emptyText(x) : scalar(x)}`];
    });
  }
  return [`${indent}${scalar(v)}`];
}

/** One YAML document (no leading ---). Undefined members are dropped, as JSON.stringify drops them. */
export function toYaml(value: unknown): string {
  return `${lines(JSON.parse(JSON.stringify(value)) as Value, '').join('\n')}\n`;
}
