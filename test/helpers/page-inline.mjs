// The functions of a page-shared module (src/span-file/*) rebuilt from their compiled text alone,
// as the trace page inlines them: a test of it proves the module needs nothing from outside.
export function inlined(module, ...names) {
  const text = Object.values(module)
    .filter((f) => typeof f === 'function')
    .map((f) => f.toString())
    .join('\n');
  return new Function(`${text}\nreturn { ${names.join(', ')} };`)();
}
