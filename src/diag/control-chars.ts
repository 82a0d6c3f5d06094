/**
 * The one escaper for text that reaches a terminal or stderr from span data or a peer (span,
 * service and event names, attribute keys and values, status messages, skipped-line reasons, an
 * OTLP backend's reason phrase or body). A terminal obeys control characters: ESC and U+009B (CSI)
 * start sequences that set the window title (OSC 0), write the clipboard (OSC 52), hide a link
 * behind text (OSC 8) or move the cursor, and CR overwrites what was printed. They are escaped
 * visibly (`\x1b`, `\x9b`, `\u202e`), never dropped, so the reader sees that something was there.
 */

// DEL, C1 controls (U+0080–U+009F, CSI U+009B among them), the line and paragraph separators, and
// the bidirectional formatting characters that reorder what follows them; C0 controls are added below.
const BEYOND_C0 = '\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const CONTROL = new RegExp(`[\\x00-\\x1f${BEYOND_C0}]`, 'g');
const CONTROL_BUT_LINES = new RegExp(`[\\x00-\\x08\\x0b-\\x1f${BEYOND_C0}]`, 'g');
const JSON_RAW = new RegExp(`[${BEYOND_C0}]`, 'g');

/**
 * `text` with every control character replaced by a visible escape: `\x1b` below U+0100, `\u009b`
 * style above it. Other text (tree drawing, accents, emoji) is unchanged.
 * @param keepLines - true: newline and tab stay (a multi-line message of our own, a stack trace)
 */
export function escapeControlChars(text: string, keepLines = false): string {
  return text.replace(keepLines ? CONTROL_BUT_LINES : CONTROL, escapeOne);
}

function escapeOne(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One line of JSON text made safe for a terminal, meaning unchanged: the characters JSON allows raw
 * inside strings (DEL, C1, bidi) become `\uXXXX` escapes, and a raw CR (allowed only as whitespace
 * between tokens) is dropped. C0 controls cannot be raw in valid JSON strings.
 */
export function escapeControlCharsInJson(line: string): string {
  return line.replace(/\r/g, '').replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
