import { TRACER_VERSION } from '../context/tracer.js';
import { runExport } from './export.js';
import { runMcp } from './mcp.js';
import { runCommand } from './run.js';
import { runUi } from './ui-server.js';
import { runView } from './view.js';

const HELP = `Usage: tracehook <command> [...]

Commands:
  run [options] app.js [args...]   run an app under the tracing preload (tracehook run --help)
  view [DIR|FILE...]               print the traces in span files, filter them, write an HTML
                                   waterfall (tracehook view --help)
  ui [DIR|FILE...]                 serve the trace page on 127.0.0.1 (tracehook ui --help)
  export [DIR|FILE...] --endpoint URL
                                   send span files to an OTLP/HTTP endpoint (tracehook export --help)
  mcp [DIR|FILE...]                a Model Context Protocol server on stdio for coding agents:
                                   traces, failures, critical paths, comparisons (tracehook mcp --help)

The preload alone: node --import @tracehook/register app.js`;

/** The `tracehook` command line. @returns the exit code */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'view':
      return runView(rest);
    case 'ui':
      return runUi(rest);
    case 'export':
      return runExport(rest);
    case 'mcp':
      return runMcp(rest);
    case '--version':
      process.stdout.write(`${TRACER_VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${HELP}\n`);
      return 0;
    default:
      process.stderr.write(`tracehook: unknown command ${JSON.stringify(command)}\n${HELP}\n`);
      return 2;
  }
}
