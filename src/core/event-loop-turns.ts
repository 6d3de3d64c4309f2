/**
 * Turns of the event loop for long synchronous work (loading, hashing, indexing, searching), so
 * Ctrl-C and SIGTERM are handled within a turn and an aborted signal stops the work.
 */
import { CorebError } from './errors.js';

/** Resolves after the event loop has had one turn (signal handlers, timers and I/O callbacks run). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Resolves after one turn of the event loop, then throws the signal's reason when `signal` aborted
 * (`AbortSignal.throwIfAborted`).
 */
export async function turnAndCheck(signal: AbortSignal | undefined): Promise<void> {
  await nextTurn();
  signal?.throwIfAborted();
}

/**
 * Turns of the event loop for a long synchronous computation cut into steps: {@link EventLoopTurns.due}
 * says when `yieldMs` milliseconds have passed since the last turn, {@link EventLoopTurns.take} gives
 * the loop a turn (so signal handlers and timers run) and then stops the work if `signal` aborted.
 */
export class EventLoopTurns {
  private last = performance.now();
  /**
   * @param yieldMs milliseconds of work between two turns (default 50).
   * @param signal aborts the work at its next turn.
   */
  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly yieldMs = 50,
  ) {}

  /** True when a turn is due. Cheap (one clock read). */
  due(): boolean {
    return performance.now() - this.last >= this.yieldMs;
  }

  /**
   * Gives the event loop one turn.
   * @param stopped what was stopped and how far it got, for the error message.
   * @throws CorebError `INTERRUPTED` when `signal` aborted (message: `stopped()` and the signal's reason).
   */
  async take(stopped: () => string): Promise<void> {
    await nextTurn();
    const { signal } = this;
    if (signal?.aborted === true) {
      const reason = signal.reason instanceof Error ? signal.reason.message : 'interrupted';
      throw new CorebError('INTERRUPTED', `${stopped()}: ${reason}`, { cause: signal.reason });
    }
    this.last = performance.now();
  }
}
