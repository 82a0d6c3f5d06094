/**
 * Parsed span-file JSON before it is checked: any value may be missing or of another type, so each field is
 * read with `?.` and tested before use (a number or string element reads as having no fields).
 */
export type RawObject = { readonly [key: string]: unknown } | null | undefined;

/** `value` when it is an array (its elements unchecked), else an empty array. */
export function arrayOrEmpty(value: unknown): RawObject[] {
  return Array.isArray(value) ? value : [];
}
