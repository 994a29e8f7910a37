package rapier.server

import java.util.concurrent.Executor

/**
 * A context an interceptor puts around an endpoint's logic (`ServerRequest.logicContext`): a trace's span, say, for
 * code that finds it in a thread-local. It is current while the security logic and the logic are computed, and, for
 * effects that hop threads (cats-effect, ZIO), on every thread they run on until they end.
 */
trait LogicContext:
  /** Makes the context current on this thread until the scope returned is closed. */
  def attach(): AutoCloseable

  /** `executor`, running each of its tasks with the context current. */
  def wrap(executor: Executor): Executor
