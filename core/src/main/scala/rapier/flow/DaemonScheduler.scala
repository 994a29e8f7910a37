package rapier.flow

import java.util.concurrent.ScheduledThreadPoolExecutor

/** A scheduler of one daemon thread, for timers that only hand their task on: it never keeps a JVM alive. */
private[rapier] object DaemonScheduler:
  def apply(name: String): ScheduledThreadPoolExecutor =
    val pool = ScheduledThreadPoolExecutor(
      1,
      r =>
        val t = Thread(r, name)
        t.setDaemon(true)
        t
    )
    // A cancelled timer (the common case: a keep-alive or an idle timeout that activity pushed back) goes at once
    pool.setRemoveOnCancelPolicy(true)
    pool
