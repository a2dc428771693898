// Vega-lite specifications to static SVG, at write time: no script, no font, no URL in the output.
// vega and vega-lite are loaded on first use (about 0.5 s), so commands that draw nothing never pay for them.
import type { TopLevelSpec } from 'vega-lite';

/** What a text measurer is handed: the text mark's font size and weight, and the width vega cuts it at. */
export interface TextMarkItem {
  fontSize?: number;
  fontWeight?: string | number;
  limit?: number;
}

// vega re-exports vega-scenegraph's text measurer (vega-scenegraph/src/util/text.js), which its typings leave out.
declare module 'vega' {
  /** How vega measures text without a canvas: `width` is the measurer it calls, which may be replaced. */
  export const textMetrics: {
    width: (item: TextMarkItem, text: unknown) => number;
    estimateWidth: (item: TextMarkItem, text: unknown) => number;
  };
}

type Vega = typeof import('vega');
type VegaLite = typeof import('vega-lite');

let libs: Promise<{ vega: Vega; vl: VegaLite }> | null = null;

function load(): Promise<{ vega: Vega; vl: VegaLite }> {
  libs ??= Promise.all([import('vega'), import('vega-lite')]).then(([vega, vl]) => {
    vega.textMetrics.width = textWidth;
    return { vega, vl };
  });
  return libs;
}

/**
 * The width of a text as a browser draws it in a sans-serif font, from the widths of character classes (those of
 * DejaVu Sans, among the widest such fonts: a narrower font only leaves a little room). Without a canvas, vega
 * guesses 0.8 em for every character, half again too wide: it cut labels that fitted and left a blank strip
 * beside every axis. A text longer than its limit is cut by vega to that limit.
 */
export function textWidth(item: TextMarkItem, text: unknown): number {
  const size = item.fontSize ?? 11;
  let em = 0;
  for (const c of text === null || text === undefined ? '' : String(text).trim())
    em += /[ijl.,:;'|!()[\]ftI ]/.test(c) ? 0.34 : /[mwMW@%—]/.test(c) ? 0.92 : /[A-Z]/.test(c) ? 0.72 : /[0-9]/.test(c) ? 0.64 : 0.6;
  const bold = item.fontWeight === 'bold' || Number(item.fontWeight) >= 600 ? 1.1 : 1;
  const width = Math.ceil(em * size * bold);
  return item.limit && item.limit > 0 ? Math.min(width, item.limit) : width;
}

/** A loader that refuses everything: the specifications carry their data inline, and a report must never fetch. */
function refusingLoader(vega: Vega) {
  const loader = vega.loader();
  const refuse = (uri: unknown) => Promise.reject(new Error(`refusing to load ${String(uri)}: a report never fetches`));
  loader.load = refuse as typeof loader.load;
  loader.sanitize = refuse as typeof loader.sanitize;
  loader.http = refuse as typeof loader.http;
  loader.file = refuse as typeof loader.file;
  return loader;
}

/** The SVG markup of one chart. The xlink namespace is dropped when unused, so the only URL left is the SVG xmlns. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, vl } = await load();
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader: refusingLoader(vega) });
  try {
    let svg = await view.toSVG();
    if (!svg.includes('xlink:href')) svg = svg.replace(/ xmlns:xlink="[^"]*"/, '');
    return svg;
  } finally {
    view.finalize();
  }
}
