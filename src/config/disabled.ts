/**
 * Whether `TRACEHOOK_DISABLED` or `OTEL_SDK_DISABLED` is `true` (case-insensitive, surrounding
 * spaces ignored), as the OpenTelemetry specification reads a boolean. The one test of the disable
 * switches, without imports: the entries ask it first (`register.mjs` repeats it inline, so that a
 * disabled preload loads no file; test/unit/config.test.mjs checks the two agree), and the worker
 * and child process code asks it of the environment a new thread or process is given. Any other
 * value is not `true`; `readConfig` reports it.
 * @see OpenTelemetry specification, "Environment Variable Specification", Boolean value; `OTEL_SDK_DISABLED`
 */
export function isDisabled(env: Record<string, string | undefined>): boolean {
  return isTrue(env.TRACEHOOK_DISABLED) || isTrue(env.OTEL_SDK_DISABLED);
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
