package rapier.server.spi

import rapier.server.{EndpointChain, Identity, ServerInterpreter, ServerResponse}

import java.util.concurrent.{ExecutorService, RejectedExecutionException}
import scala.util.Failure
import scala.util.control.NonFatal

/**
 * Runs direct-style endpoints ([[rapier.server.Identity]]: plain code that may block) one virtual thread per request,
 * the response hopping back to the connection's loop. A client that goes away interrupts its request's thread.
 *
 * Virtual threads are JDK 21's; the project builds for JDK 17, so they are reached by reflection, and [[create]]
 * fails with a message that says so on an older JDK.
 */
final class VirtualThreadRunner private (threads: ExecutorService) extends Runner[Identity]:
  def start(
      interpreter: ServerInterpreter[Identity],
      request: ServerRequest,
      chain: EndpointChain[Identity] | Null,
      routed: Boolean
  ): ServerResponse | Running = OnVirtualThread(interpreter, request, chain, routed)

  /** Lets the requests in progress finish, and starts no more. */
  def shutdown(): Unit = threads.shutdown()

  private final class OnVirtualThread(
      interpreter: ServerInterpreter[Identity],
      request: ServerRequest,
      chain: EndpointChain[Identity] | Null,
      routed: Boolean
  ) extends Running,
        Runnable:
    private var loop: EventLoop = null
    private var k: ServerResponse => Unit = null
    @volatile private var thread: Thread | Null = null
    @volatile private var cancelled = false

    def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit =
      this.loop = loop
      this.k = k
      try threads.execute(this)
      catch
        case e: RejectedExecutionException =>
          k(Completion.responseOf(Failure(IllegalStateException("the server is stopping", e))))

    def run(): Unit =
      thread = Thread.currentThread()
      val response =
        try
          if cancelled then throw InterruptedException("the client went away before its request started")
          Runner.serve(interpreter, request, chain, routed)
        catch case NonFatal(e) => Completion.responseOf(Failure(e))
        finally thread = null
      Thread.interrupted() // an interrupt that came too late for the logic is not the next task's
      try loop.execute(() => k(response))
      catch case _: RejectedExecutionException => () // the connection's loop has stopped: nobody to answer

    def cancellable: Boolean = true

    def cancel(): Unit =
      cancelled = true
      val t = thread
      if t != null then t.nn.interrupt()

object VirtualThreadRunner:
  /** Whether this JVM has virtual threads (JDK 21 or newer). */
  def available: Boolean = newExecutor.isDefined

  /**
   * A runner with a virtual-thread-per-task executor of its own.
   * @throws UnsupportedOperationException
   *   on a JDK without virtual threads, saying which JDK this is and what is needed
   */
  def create(): VirtualThreadRunner = newExecutor match
    case Some(make) => VirtualThreadRunner(make())
    case None =>
      throw UnsupportedOperationException(
        s"direct-style servers run each request on a virtual thread, which needs JDK 21 or newer; this JVM is " +
          s"${System.getProperty("java.version")} (${System.getProperty("java.home")})"
      )

  private val newExecutor: Option[() => ExecutorService] =
    try
      val method = classOf[java.util.concurrent.Executors].getMethod("newVirtualThreadPerTaskExecutor")
      Some(() => method.invoke(null).asInstanceOf[ExecutorService])
    catch case _: NoSuchMethodException => None
