package rapier.server

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{Executor, LinkedBlockingQueue, ThreadFactory, ThreadPoolExecutor, TimeUnit}

/**
 * Where the server runs what may block a thread: reading a response body from an `InputStream`, writing an upload to
 * its temporary file.
 */
object BlockingExecutor:
  /** The threads of the default executor. */
  val DefaultThreads: Int = 64

  /**
   * The default: up to [[DefaultThreads]] daemon threads named `rapier-blocking-N`, started as tasks come and ending
   * after a minute idle; tasks beyond them wait their turn. Bounded, so that a crowd of slow clients, each holding a
   * blocked read or write, can't make the server start a thread apiece. Never an event loop's thread.
   */
  lazy val default: Executor = bounded(DefaultThreads)

  /** A pool of at most `threads` daemon threads, as [[default]] is. */
  def bounded(threads: Int): Executor =
    require(threads > 0, s"a blocking executor needs a thread at least, not $threads")
    val count = AtomicInteger()
    val factory: ThreadFactory = task =>
      val t = Thread(task, s"rapier-blocking-${count.incrementAndGet()}")
      t.setDaemon(true)
      t
    val pool = ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, LinkedBlockingQueue[Runnable](), factory)
    pool.allowCoreThreadTimeOut(true)
    pool
