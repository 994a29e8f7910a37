package rapier.server

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{Executor, ExecutorService, Executors, ThreadFactory}

/** Where the server runs what may block a thread, such as reading a response body from an `InputStream`. */
object BlockingExecutor:
  /**
   * The default: a cached pool of daemon threads named `rapier-blocking-N`, created on first use, threads ending after
   * a minute idle. Never an event loop's thread.
   */
  lazy val default: Executor = cachedPool()

  private def cachedPool(): ExecutorService =
    val count = AtomicInteger()
    val factory: ThreadFactory = task =>
      val t = Thread(task, s"rapier-blocking-${count.incrementAndGet()}")
      t.setDaemon(true)
      t
    Executors.newCachedThreadPool(factory)
