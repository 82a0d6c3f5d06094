// A script that prints one line and exits: issue 30's startup goal for short-lived tools (spawn → exit).
// Usage: node bench/apps/print-line.cjs
console.log('hello');
