package rapier.flow

import java.util.concurrent.atomic.AtomicInteger

/**
 * Runs [[step]] once for every call of [[drain]], one thread at a time and never from inside itself: a call made
 * while a step runs (on the same thread, from a callback the step caused, or on another) is counted, and the thread
 * already in the loop makes that step next. What readers of a body source need, whose answers may come on any thread,
 * or on the caller's stack before `pull` returns, and what `Flow` publishers need to signal their subscriber
 * serially: a body of many chunks does not grow the stack.
 */
private[rapier] abstract class DrainLoop:
  private val pending = AtomicInteger()

  /** One unit of work: a pull, or what is ready to be signalled. */
  protected def step(): Unit

  protected final def drain(): Unit =
    if pending.getAndIncrement() == 0 then
      var missed = 1
      while missed != 0 do
        step()
        missed = pending.addAndGet(-missed)
