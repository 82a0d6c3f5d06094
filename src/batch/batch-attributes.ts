// Attribute names of the batch spans. Ours: the semantic conventions have batch sizes for
// messaging and databases only (`messaging.batch.message_count`, `db.operation.batch.size`).

/** On each link of a batch span, and on each caller's span: the item's index in the batch (0-based). */
export const BATCH_INDEX_ATTRIBUTE = 'tracehook.batch.index';

/** On the batch span and each caller's span: the number of items in the batch. */
export const BATCH_SIZE_ATTRIBUTE = 'tracehook.batch.size';

/** On each caller's span: milliseconds (float) from the call to the start of its batch. */
export const BATCH_WAIT_MS_ATTRIBUTE = 'tracehook.batch.wait_ms';
