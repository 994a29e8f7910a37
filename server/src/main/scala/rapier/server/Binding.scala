package rapier.server

import java.net.InetSocketAddress
import java.util.concurrent.CountDownLatch

/**
 * A running server, whatever its backend: where it listens, and how it stops. A backend implements [[address]],
 * [[bodyBytesHeld]] and [[shutdown]]; stopping once, waiting for the stop and stopping with the JVM are written here.
 */
abstract class Binding:
  /** The address the server listens on: the port is the one asked for, or the one picked for port 0. */
  def address: InetSocketAddress

  /** The port the server listens on. */
  final def port: Int = address.getPort

  /** The host name or address the server is bound to, as given. */
  final def hostName: String = address.getHostString

  /**
   * Bytes of request bodies the server holds now, being read before their requests reach the endpoints: at most
   * `maxBodySize` per connection receiving a body. A gauge for monitoring memory under uploads.
   */
  def bodyBytesHeld: Long

  /**
   * Stops gracefully, once: stops accepting connections, lets requests in progress finish (their responses say
   * `Connection: close`), closes idle connections, and after the shutdown timeout closes whatever is left. Called by
   * [[stop]] only.
   */
  protected def shutdown(): Unit

  private val stopped = CountDownLatch(1)
  private var stopping = false
  private var afterStop: List[() => Unit] = Nil

  /** Stops gracefully (see [[shutdown]]) and returns when done. Calling it again, from any thread, waits for that. */
  final def stop(): Unit = synchronized {
    if !stopping then
      stopping = true
      try shutdown()
      finally
        afterStop.foreach(_())
        stopped.countDown()
  }

  /** Runs `f` once the server has stopped (what a flavour of a backend started beside it: a thread pool). */
  final def onStop(f: () => Unit): this.type = synchronized {
    afterStop = afterStop :+ f
    this
  }

  /** Blocks until the server has been stopped (from another thread, or a shutdown hook). */
  final def awaitStop(): Unit = stopped.await()

  /** Stops the server when the JVM shuts down (Ctrl-C). */
  final def stopOnShutdown(): this.type =
    Runtime.getRuntime.addShutdownHook(Thread(() => stop(), "rapier-shutdown"))
    this
