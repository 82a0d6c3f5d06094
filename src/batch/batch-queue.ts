/** What {@link BatchQueue} needs of a queued call. */
export interface QueuedCall {
  /** `performance.now()` when the call was queued. */
  enqueuedAt: number;
  /** Set once the call has waited its `waitMs`: its batch runs even if not full. */
  due: boolean;
}

/** Limits of a {@link BatchQueue}, checked by `batch()`. */
export interface BatchQueueLimits {
  /** Most calls per batch; integer ≥ 1. */
  maxBatchSize: number;
  /** Longest wait, in ms, of the oldest queued call before a partial batch runs; ≥ 0. */
  waitMs: number;
  /** Most batches running at once; integer ≥ 1. */
  maxConcurrent: number;
}

/**
 * Starts one batch: must call `finished` exactly once when the batch has settled its calls, after which the
 * queue schedules the next.
 */
export type StartBatch<E> = (calls: E[], finished: () => void) => void;

/**
 * The queue behind `batch()`: when batches start. A full batch starts at once; a partial one only from the
 * oldest call's timer (or when a batch ends), never inside a caller's call, so callers of the same tick share
 * a batch even with a 0 ms wait. At most `maxConcurrent` batches run at once.
 */
export class BatchQueue<E extends QueuedCall> {
  private readonly queue: E[] = [];
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerFor: E | undefined;

  constructor(
    private readonly limits: BatchQueueLimits,
    private readonly start: StartBatch<E>,
  ) {}

  /** Queues a call and starts what can start. */
  push(call: E): void {
    this.queue.push(call);
    this.schedule();
  }

  private schedule(): void {
    const { maxBatchSize, maxConcurrent } = this.limits;
    while (this.queue.length > 0 && this.running < maxConcurrent) {
      const oldest = this.queue[0];
      if (this.queue.length < maxBatchSize && !oldest.due) {
        if (this.timerFor !== oldest) this.arm(oldest);
        return;
      }
      this.running++;
      this.start(this.queue.splice(0, maxBatchSize), () => {
        this.running--;
        this.schedule();
      });
    }
    if (this.queue.length === 0) this.disarm();
  }

  private arm(call: E): void {
    this.disarm();
    this.timerFor = call;
    this.timer = setTimeout(
      () => {
        this.timer = this.timerFor = undefined;
        call.due = true;
        this.schedule();
      },
      Math.max(0, Math.ceil(call.enqueuedAt + this.limits.waitMs - performance.now())),
    );
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = this.timerFor = undefined;
  }
}
