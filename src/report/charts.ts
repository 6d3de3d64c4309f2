/**
 * Charts of the HTML report as declarative Vega-Lite specs, rendered headlessly: Vega-Lite compiles
 * to Vega, Vega renders SVG without a canvas, resvg rasterises the SVG to PNG. vega, vega-lite and
 * @resvg/resvg-js are loaded only when a chart is rendered.
 */
import { CorebError } from '../core/errors.js';

/** Okabe–Ito: eight colours distinguishable with the common colour-vision deficiencies (Okabe & Ito 2008). */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'] as const;

/** Colours of {@link retrieverColours} past the eight of Okabe–Ito (Tableau 20's darker hues). */
const MORE_COLOURS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#393b79',
  '#637939',
];

/**
 * One colour per retriever for the whole report, so a retriever looks the same in every chart and
 * release: given in order of first appearance (the first group's leaderboard order, then the rows
 * only later groups have), Okabe–Ito first, then twelve more, then again from the start.
 */
export function retrieverColours(groups: ReadonlyArray<{ retrievers: ReadonlyArray<{ name: string }> }>): Map<string, string> {
  const palette = [...OKABE_ITO, ...MORE_COLOURS];
  const out = new Map<string, string>();
  for (const g of groups) for (const r of g.retrievers) if (!out.has(r.name)) out.set(r.name, palette[out.size % palette.length]);
  return out;
}

/**
 * The chart spec with every colour encoding of the `retriever` field bound to the report's
 * colours: the scale's domain the retrievers the chart's data holds (its legend lists no other),
 * in the order of `colours`, the range their colours.
 */
export function withRetrieverColours(spec: Record<string, unknown>, colours: ReadonlyMap<string, string>): Record<string, unknown> {
  const present = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node !== null && typeof node === 'object') {
      const values = (node as { data?: { values?: unknown } }).data?.values;
      if (Array.isArray(values))
        for (const v of values) if (typeof (v as { retriever?: unknown }).retriever === 'string') present.add((v as { retriever: string }).retriever);
      Object.values(node).forEach(collect);
    }
  };
  collect(spec);
  const domain = [...colours.keys()].filter((n) => present.has(n));
  if (domain.length === 0) return spec;
  const scale = { domain, range: domain.map((n) => colours.get(n)!) };
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      const colour = v as { field?: unknown; scale?: unknown } | null;
      out[k] = k === 'color' && colour !== null && typeof colour === 'object' && colour.field === 'retriever' ? { ...colour, scale } : rewrite(v);
    }
    return out;
  };
  return rewrite(spec) as Record<string, unknown>;
}

/** A chart of the report: its spec and what a reader without the picture gets instead. */
export interface ChartSpec {
  /** File-name-safe id (`tasks-ndcg`); the files are `<id>.svg` and `<id>.png`. */
  id: string;
  title: string;
  /** One-sentence text alternative (what the chart shows, with its main finding). */
  alt: string;
  /** The data as a table: the chart's full text alternative. */
  table: { header: string[]; rows: string[][] };
  /** A Vega-Lite spec (data inlined). */
  spec: Record<string, unknown>;
}

/** A rendered chart. */
export interface RenderedChart extends ChartSpec {
  svg: string;
}

/** The config every chart shares: palette, fonts, no actions. */
export function chartConfig(): Record<string, unknown> {
  return {
    background: 'white',
    font: 'DejaVu Sans, Liberation Sans, Arial, sans-serif',
    range: { category: [...OKABE_ITO] },
    axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
    legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 },
    title: { fontSize: 14, anchor: 'start' },
    view: { stroke: null },
  };
}

type VegaModule = typeof import('vega');
type VegaLiteModule = typeof import('vega-lite');

let loaded: Promise<{ vega: VegaModule; vl: VegaLiteModule }> | undefined;

async function loadVega(): Promise<{ vega: VegaModule; vl: VegaLiteModule }> {
  loaded ??= (async () => {
    try {
      const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
      return { vega, vl };
    } catch (e) {
      loaded = undefined;
      throw new CorebError(
        'UNSUPPORTED',
        'charts need the packages vega and vega-lite (dependencies of coreb; run `npm ci` or `npm install vega@6.4.0 vega-lite@6.4.3`)',
        { cause: e },
      );
    }
  })();
  return loaded;
}

/**
 * Gives every `id="x"` of an SVG a prefix and rewrites its references (`url(#x)`, `href="#x"`), so
 * several Vega SVGs can be inlined in one page without their clip paths colliding.
 */
export function prefixSvgIds(svg: string, prefix: string): string {
  const ids = new Set<string>();
  for (const m of svg.matchAll(/\bid="([^"]+)"/g)) ids.add(m[1]);
  if (ids.size === 0) return svg;
  return svg
    .replace(/\bid="([^"]+)"/g, (_, id: string) => `id="${prefix}${id}"`)
    .replace(/url\(#([^)]+)\)/g, (m, id: string) => (ids.has(id) ? `url(#${prefix}${id})` : m))
    .replace(/href="#([^"]+)"/g, (m, id: string) => (ids.has(id) ? `href="#${prefix}${id}"` : m));
}

/**
 * Renders a chart to a standalone SVG string (Vega's SVG renderer, no canvas; text widths are
 * estimated), with a `<title>` text alternative and ids prefixed by the chart id.
 */
export async function renderChartSvg(chart: ChartSpec): Promise<string> {
  const { vega, vl } = await loadVega();
  const spec = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', config: chartConfig(), ...chart.spec };
  const compiled = vl.compile(spec as unknown as Parameters<VegaLiteModule['compile']>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    let svg = await view.toSVG();
    svg = prefixSvgIds(svg, `${chart.id}-`);
    const title = `<title>${escapeXml(chart.alt)}</title>`;
    return svg.replace(/^<svg\b([^>]*)>/, `<svg$1 role="img" aria-label="${escapeXml(chart.alt)}">${title}`);
  } finally {
    view.finalize();
  }
}

/**
 * Rasterises an SVG to PNG with resvg (2x zoom, system fonts).
 * @throws CorebError `UNSUPPORTED` when the optional @resvg/resvg-js is not installed.
 */
export async function renderPng(svg: string): Promise<Uint8Array> {
  let mod: typeof import('@resvg/resvg-js');
  try {
    mod = await import('@resvg/resvg-js');
  } catch (e) {
    throw new CorebError(
      'UNSUPPORTED',
      'PNG charts need the optional package @resvg/resvg-js (`npm install @resvg/resvg-js@2.6.2`); or pass --no-png',
      { cause: e },
    );
  }
  return new mod.Resvg(svg, { fitTo: { mode: 'zoom', value: 2 }, font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } })
    .render()
    .asPng();
}

/** Escapes text for XML/HTML text and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
