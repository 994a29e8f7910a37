package rapier.perf.common

import java.util.concurrent.{ConcurrentHashMap, Executors, TimeUnit}

/**
 * The throttled stream of the WebSocket study: one clock that ticks every [[Ticks.Millis]] ms for the whole server,
 * telling every listener (a WebSocket with answers due), which answers on its own thread.
 */
object Ticks:
  val Millis = 100L

  private val listeners = ConcurrentHashMap.newKeySet[Runnable]()
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

  /** A timestamp as the study's messages carry it: `System.nanoTime`, which every JVM on this machine reads alike. */
  def stamp(): String = java.lang.Long.toString(System.nanoTime())
