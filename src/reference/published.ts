// The articles' published figures and claims, shipped as data/published.json (never read from the
// articles themselves at run time). This module loads that file (validated by validate.ts, typed by types.ts)
// and offers small look-ups. See docs/published-figures.md for what every field means and how claims are judged.
import { readFileSync } from 'node:fs';
import { validatePublished } from './validate.js';
import type { Article, Claim, Expectation, ExperimentName, Published, PublishedFigure } from './types.js';

export * from './types.js';
export { validatePublished } from './validate.js';

export const PUBLISHED_URL = new URL('../../data/published.json', import.meta.url);

// ---------------------------------------------------------------- loading and look-ups

let cached: Published | undefined;

/** Reads and validates data/published.json (cached after the first call for the default location). */
export function loadPublished(url: URL | string = PUBLISHED_URL): Published {
  const isDefault = String(url) === String(PUBLISHED_URL);
  if (isDefault && cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(url, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read published figures from ${String(url)}: ${(e as Error).message}`);
  }
  const p = validatePublished(raw);
  if (isDefault) cached = p;
  return p;
}

export function articleExperiments(article: Article): ExperimentName[] {
  return Array.isArray(article.experiment) ? article.experiment : [article.experiment];
}

export function getArticle(id: string, p: Published = loadPublished()): Article | undefined {
  return p.articles.find((a) => a.id === id);
}

/** Every figure the given article publishes, in file order. */
export function figuresFor(article: string, p: Published = loadPublished()): PublishedFigure[] {
  return p.figures.filter((f) => f.article === article);
}

/** Every claim checked on the given experiment's data. */
export function claimsFor(experiment: ExperimentName, p: Published = loadPublished()): Claim[] {
  return p.claims.filter((c) => c.experiment === experiment);
}

export function getFigure(id: string, p: Published = loadPublished()): PublishedFigure | undefined {
  return p.figures.find((f) => f.id === id);
}

/** The value of a published figure, for code that quotes it (the experiments' views); throws for an unknown id. */
export function publishedValue(id: string, p: Published = loadPublished()): number {
  const f = getFigure(id, p);
  if (!f) throw new Error(`data/published.json has no figure ${id}`);
  return f.value;
}

export function getClaim(id: string, p: Published = loadPublished()): Claim | undefined {
  return p.claims.find((c) => c.id === id);
}

/** Whether a measured value meets an expectation (the shared rule for approx / at-least / at-most / between). */
export function meetsExpectation(measured: number, e: Expectation): boolean {
  if (!Number.isFinite(measured)) return false;
  switch (e.expect) {
    case 'approx':
      return measured >= e.published / e.tolerance.factor && measured <= e.published * e.tolerance.factor;
    case 'at-least':
      return measured >= e.limit;
    case 'at-most':
      return measured <= e.limit;
    case 'between':
      return measured >= e.min && measured <= e.max;
  }
}
