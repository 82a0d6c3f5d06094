// No imports: register.mjs and register.cjs load this file alone, before anything else, so that a
// disabled preload costs one small file.

/**
 * Whether `TRACEHOOK_DISABLED` or `OTEL_SDK_DISABLED` is `true` (case-insensitive, surrounding
 * spaces ignored), as the OpenTelemetry specification reads a boolean. The one test of the disable
 * switches: the preload entries make it before loading anything else, and the worker and child
 * process code makes it on the environment a new thread or process is given. Any other value is
 * not `true`; {@link readConfig} reports it.
 * @see OpenTelemetry specification, "Environment Variable Specification", Boolean value; `OTEL_SDK_DISABLED`
 */
export function isDisabled(env: Record<string, string | undefined>): boolean {
  return isTrue(env.TRACEHOOK_DISABLED) || isTrue(env.OTEL_SDK_DISABLED);
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
