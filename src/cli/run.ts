import { spawn } from 'node:child_process';
import { preloadFlags } from '../package-root.js';
import { FLAGS_WITH_VALUE, splitNodeOptions } from '../workers/preload-flags.js';
import { forwardSignals } from './forward-signals.js';

/** Flags of `tracehook run` and the variable each sets for the preload. */
const FLAGS: Record<string, string> = {
  '--tracing-startup-hook': 'TRACEHOOK_STARTUP_HOOK',
  '--exporter-import-path': 'TRACEHOOK_EXPORTER_IMPORT_PATH',
  '--sampling-ratio': 'TRACEHOOK_SAMPLING_RATIO',
  '--spans-dir': 'TRACEHOOK_SPANS_DIR',
};

export const RUN_HELP = `Usage: tracehook run [options] [node options] app.js [args...]

Runs app.js under the tracehook preload, passing stdio, signals and the exit code through.
SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGINT and SIGQUIT sent to tracehook reach the app; in a
terminal, Ctrl-C and Ctrl-\\ reach the app once, from the terminal itself.

Options (each sets the environment variable in brackets):
  --tracing-startup-hook=module:attribute  the startup hook [TRACEHOOK_STARTUP_HOOK]
  --exporter-import-path=module:function   span processors [TRACEHOOK_EXPORTER_IMPORT_PATH]
  --sampling-ratio=R                       0..1 [TRACEHOOK_SAMPLING_RATIO]
  --spans-dir=DIR                          span files [TRACEHOOK_SPANS_DIR]

The preload is given as --import, or as --require when the app needs the CommonJS loader
(a .ts/.cts/.tsx entry, or a -r/--require/--loader option in the command or in NODE_OPTIONS):
any --import sends the entry file through the ESM loader, past a -r hook (ts-node/register),
on every Node version.`;

/** The parsed command line of `tracehook run`. */
export interface RunCommand {
  env: Record<string, string>;
  nodeArgs: string[];
  app: string;
  appArgs: string[];
}

/**
 * Parses `tracehook run` arguments (`--flag=value` or `--flag value`).
 * @throws Error naming the argument when a flag lacks its value or no app is given
 */
export function parseRunArgs(argv: string[]): RunCommand {
  const env: Record<string, string> = {};
  const nodeArgs: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-')) break;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAGS[name]) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new Error(`${name} needs a value: ${name}=VALUE`);
      env[FLAGS[name]] = value;
    } else {
      nodeArgs.push(arg);
      if (eq < 0 && FLAGS_WITH_VALUE.has(arg) && i + 1 < argv.length) nodeArgs.push(argv[++i]);
    }
  }
  const app = argv[i];
  if (app === undefined) throw new Error('no app given: tracehook run [options] app.js [args...]');
  return { env, nodeArgs, app, appArgs: argv.slice(i + 1) };
}

/** Whether the app needs `--require` rather than `--import` (see RUN_HELP). */
export function needsRequireForm(command: RunCommand, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  if (/\.(c?ts|tsx)$/.test(command.app)) return true;
  const options = [...command.nodeArgs, ...splitNodeOptions(nodeOptions)];
  return options.some((o) => /^(-r|--require|--loader|--experimental-loader)(=|$)/.test(o));
}

/**
 * `tracehook run`: starts the app under the preload and mirrors its end: the same exit code, or the
 * same signal raised on this process. Signals received here are passed on as forwardSignals says.
 * @returns the exit code when the child exits normally; when it dies by a signal this process
 *   dies by the same signal
 */
export function runCommand(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(`${RUN_HELP}\n`);
    return Promise.resolve(0);
  }
  let command: RunCommand;
  try {
    command = parseRunArgs(argv);
  } catch (err) {
    process.stderr.write(`tracehook run: ${(err as Error).message}\n`);
    return Promise.resolve(2);
  }
  const args = [...preloadFlags(needsRequireForm(command)), ...command.nodeArgs, command.app, ...command.appArgs];
  const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, ...command.env } });
  const stopForwarding = forwardSignals(child);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      stopForwarding();
      process.stderr.write(`tracehook run: cannot start ${process.execPath}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      stopForwarding();
      if (signal) process.kill(process.pid, signal);
      else resolve(code ?? 1);
    });
  });
}
