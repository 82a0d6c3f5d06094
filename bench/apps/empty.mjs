// An empty ES module: `node --import` of it is the cost any `--import` preload pays before its first line (Node
// starts its ES module loader for it). bench/startup.mjs measures it as the floor under tracehook's disabled row.
// Usage: node --import ./bench/apps/empty.mjs app.cjs
export {};
