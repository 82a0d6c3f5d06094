import { basename } from 'node:path';
import type { Resource } from '@opentelemetry/resources';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { TracehookConfig } from '../config/environment.js';
import { threadId } from '../workers/thread.js';

/**
 * The resource of every span of this thread: the SDK's defaults, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_SERVICE_NAME` (default `unknown_service:node`, per the specification), `process.pid`,
 * `process.parent_pid`, `process.runtime.*` and `thread.id` (0 on the main thread).
 */
export function createResource(config: Pick<TracehookConfig, 'serviceName' | 'resourceAttributes'>): Resource {
  return defaultResource().merge(
    resourceFromAttributes({
      'service.name': `unknown_service:${basename(process.argv0 || 'node')}`,
      ...config.resourceAttributes,
      ...(config.serviceName ? { 'service.name': config.serviceName } : {}),
      'process.pid': process.pid,
      'process.parent_pid': process.ppid,
      'process.runtime.name': 'nodejs',
      'process.runtime.version': process.versions.node,
      'thread.id': threadId,
    }),
  );
}
