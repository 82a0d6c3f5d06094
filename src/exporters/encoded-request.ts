import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { RequestEncoding } from '../encoding/request-encoding.js';
import { stateKey } from '../state-key.js';

// Global symbols: the span processor and the exporter may come from different copies of this module (a bundle beside
// the preload's files); versioned, so another tracehook version's processor encodes nothing for this exporter.
const ENCODER = stateKey('requestEncoder');
const ENCODED = stateKey('encodedRequest');

/** Encodes the request of a batch a few spans at a time (see {@link RequestEncoding}). */
export type StepwiseEncoder = (spans: readonly ReadableSpan[]) => RequestEncoding;

type WithEncoder = SpanExporter & { [ENCODER]?: StepwiseEncoder };
type EncodedBatch = ReadableSpan[] & { [ENCODED]?: Uint8Array };

/**
 * Declares that `exporter` sends a batch's request as `encoder` encodes it, and takes that request
 * ready-made ({@link withEncodedRequest}): a span processor may then encode it over several turns
 * of the event loop before calling `export()`.
 */
export function setStepwiseEncoder(exporter: SpanExporter, encoder: StepwiseEncoder): void {
  Object.defineProperty(exporter, ENCODER, { value: encoder, configurable: true });
}

/** The encoder `exporter` declared with {@link setStepwiseEncoder}, if any. */
export function stepwiseEncoderOf(exporter: SpanExporter): StepwiseEncoder | undefined {
  return (exporter as WithEncoder)[ENCODER];
}

/**
 * `spans`, the batch handed to `export()`, carrying its request's bytes: the array stays the batch (an
 * exporter's metrics count its items; the exit path encodes the spans again its own way).
 */
export function withEncodedRequest(spans: ReadableSpan[], bytes: Uint8Array): ReadableSpan[] {
  Object.defineProperty(spans, ENCODED, { value: bytes, configurable: true });
  return spans;
}

/** The request bytes {@link withEncodedRequest} gave `spans`, if any. */
export function encodedRequestOf(spans: readonly ReadableSpan[]): Uint8Array | undefined {
  return (spans as EncodedBatch)[ENCODED];
}
