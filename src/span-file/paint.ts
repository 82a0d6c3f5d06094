/**
 * Terminal colours for `tracehook view`: ANSI SGR codes when enabled, the text unchanged otherwise.
 * Enabled on a TTY unless `NO_COLOR` is set (https://no-color.org), or by a non-empty `FORCE_COLOR`
 * other than `0`.
 */

/** The styles `tracehook view` uses. */
export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'service0' | 'service1' | 'service2' | 'service3' | 'service4' | 'service5';

/** Wraps text in a style; the identity when colours are off. */
export type Paint = (style: Style, text: string) => string;

const CODES: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  service0: [36, 39],
  service1: [35, 39],
  service2: [34, 39],
  service3: [33, 39],
  service4: [32, 39],
  service5: [96, 39],
};

/** A painter that colours nothing. */
export const noPaint: Paint = (_style, text) => text;

/** A painter that colours with ANSI codes. */
export const ansiPaint: Paint = (style, text) => (text === '' ? text : `\x1b[${CODES[style][0]}m${text}\x1b[${CODES[style][1]}m`);

/** Whether to colour output to `stream` (see the module comment). */
export function colorEnabled(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  return stream.isTTY === true;
}

/** The style of the `index`-th service of a trace: six colours, reused in turn. */
export function serviceStyle(index: number): Style {
  return `service${index % 6}` as Style;
}

/** Paints a padded table cell's text, leaving its padding outside the codes (so lines trim alike). */
export function paintCell(paint: Paint, style: Style, cell: string): string {
  const text = cell.trimEnd();
  const start = cell.length - cell.trimStart().length;
  return cell.slice(0, start) + paint(style, text.slice(start)) + cell.slice(text.length);
}
