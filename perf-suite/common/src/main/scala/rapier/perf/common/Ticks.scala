package rapier.perf.common

import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue, Executors, TimeUnit}

/**
 * The throttled stream of the WebSocket study: one clock that ticks every [[Ticks.Millis]] ms for the whole server,
 * telling every listener (a WebSocket with answers due), which answers on its own thread.
 */
object Ticks:
  /** The system property that sets the tick, in milliseconds (the suite's `--tick-ms`). */
  val Property = "rapier.perf.tickMillis"

  /** The clock's period: 100 ms, the seed's, unless [[Property]] says otherwise. */
  val Millis: Long = java.lang.Long.getLong(Property, 100L).longValue.max(1L)

  private val listeners = ConcurrentHashMap.newKeySet[Runnable]()
  // Answers due on the next tick, for servers that wait for it one message at a time (a future, an effect)
  private val next = ConcurrentLinkedQueue[String => Unit]()
  private val answerNext: Runnable = () =>
    if !next.isEmpty then
      val stamp = Ticks.stamp()
      var answer = next.poll()
      while answer != null do
        answer(stamp)
        answer = next.poll()
  private lazy val clock =
    val c = Executors.newSingleThreadScheduledExecutor { r =>
      val t = Thread(r, "ticks")
      t.setDaemon(true)
      t
    }
    c.scheduleAtFixedRate(() => listeners.forEach(_.run()), Millis, Millis, TimeUnit.MILLISECONDS)
    c

  /** Calls `listener` at every tick until [[remove]]d. */
  def add(listener: Runnable): Unit =
    clock
    listeners.add(listener)

  def remove(listener: Runnable): Unit = listeners.remove(listener)

  /** Calls `answer` once, on the next tick, with the time then. */
  def onNext(answer: String => Unit): Unit =
    add(answerNext)
    next.add(answer)

  /** A timestamp as the study's messages carry it: `System.nanoTime`, which every JVM on this machine reads alike. */
  def stamp(): String = java.lang.Long.toString(System.nanoTime())
