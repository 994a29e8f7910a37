package rapier.server.spi

import rapier.server.{EndpointChain, Identity, ServerInterpreter, ServerResponse, VirtualThreadStart}

import java.lang.reflect.{Constructor, Method}
import java.util.concurrent.{Executor, RejectedExecutionException, ThreadFactory}
import scala.util.Failure
import scala.util.control.NonFatal

/**
 * Runs direct-style endpoints ([[rapier.server.Identity]]: plain code that may block) one virtual thread per request,
 * started where a [[VirtualThreadStart]] says, the response hopping back to the connection's loop when the thread is not
 * on it. A client that goes away interrupts its request's thread.
 *
 * Virtual threads are JDK 21's; the project builds for JDK 17, so they are reached by reflection, and `create`
 * fails with a message that says so on an older JDK.
 */
final class VirtualThreadRunner private (starter: VirtualThreadRunner.Starter) extends Runner[Identity]:
  def start(
      interpreter: ServerInterpreter[Identity],
      request: ServerRequest,
      chain: EndpointChain[Identity] | Null
  ): ServerResponse | Running = OnVirtualThread(interpreter, request, chain)

  /** Lets the requests in progress finish, and starts no more. */
  def shutdown(): Unit = starter.shutdown()

  private final class OnVirtualThread(
      interpreter: ServerInterpreter[Identity],
      request: ServerRequest,
      chain: EndpointChain[Identity] | Null
  ) extends Running,
        Runnable:
    private var loop: EventLoop = null
    private var k: ServerResponse => Unit = null
    @volatile private var thread: Thread | Null = null
    @volatile private var cancelled = false

    def onComplete(loop: EventLoop)(k: ServerResponse => Unit): Unit =
      this.loop = loop
      this.k = k
      try starter.start(loop, this)
      catch
        case e: RejectedExecutionException =>
          k(Completion.responseOf(Failure(IllegalStateException("the server is stopping", e))))

    def run(): Unit =
      thread = Thread.currentThread()
      val response =
        try
          if cancelled then throw InterruptedException("the client went away before its request started")
          interpreter.serve(request, chain)
        catch
          case NonFatal(e) => Completion.responseOf(Failure(e))
          case e: InterruptedException => Completion.responseOf(Failure(e))
        finally thread = null
      Thread.interrupted() // an interrupt that came too late for the logic is not the next task's
      if cancelled then request.cancelled()
      try loop.execute(() => k(response))
      catch case _: RejectedExecutionException => () // the connection's loop has stopped: nobody to answer

    def cancellable: Boolean = true

    def cancel(): Unit =
      cancelled = true
      val t = thread
      if t != null then t.nn.interrupt()

object VirtualThreadRunner:
  /** Whether this JVM has virtual threads (JDK 21 or newer). */
  def available: Boolean = newFactory.isDefined

  /**
   * A runner starting its threads as `start` says.
   * @throws UnsupportedOperationException
   *   on a JDK without virtual threads, saying which JDK this is and what is needed; for
   *   [[VirtualThreadStart.OnLoop]], when the JVM doesn't let Rapier schedule virtual threads itself, saying how to
   */
  def create(start: VirtualThreadStart = VirtualThreadStart.OnCarrier): VirtualThreadRunner =
    val threads = newFactory.getOrElse(
      throw UnsupportedOperationException(
        s"direct-style servers run each request on a virtual thread, which needs JDK 21 or newer; this JVM is " +
          s"${System.getProperty("java.version")} (${System.getProperty("java.home")})"
      )
    )
    start match
      case VirtualThreadStart.OnCarrier => VirtualThreadRunner(OnCarriers(threads))
      case VirtualThreadStart.OnLoop =>
        VirtualThreadRunner(OnLoops(LoopScheduling.access.fold(
          why => throw UnsupportedOperationException(why),
          identity
        )))

  /** How a runner makes a request's thread; it starts them until [[shutdown]]. */
  private abstract class Starter:
    @volatile private var stopped = false

    /** Starts a virtual thread running `task`, for a request of `loop`'s, now or by the end of the loop's turn. */
    protected def launch(loop: EventLoop, task: Runnable): Unit

    /** @throws RejectedExecutionException once [[shutdown]] */
    final def start(loop: EventLoop, task: Runnable): Unit =
      if stopped then throw RejectedExecutionException("the server is stopping")
      launch(loop, task)

    final def shutdown(): Unit = stopped = true

  /**
   * From the JDK's factory of virtual threads, on its carriers. Not through its thread-per-task executor, which records
   * each thread in a concurrent set to be able to wait for them all: nothing here waits for them, and the set cost a
   * node and a wrapper per request.
   *
   * A loop's requests are handed over in batches ([[Batch]]); a request started off its loop gets its thread at once.
   */
  private final class OnCarriers(threads: ThreadFactory) extends Starter:
    private val batches = ThreadLocal.withInitial[Batch](() => Batch(threads))

    protected def launch(loop: EventLoop, task: Runnable): Unit =
      if loop.inLoop then batches.get.nn.add(loop, task)
      else threads.newThread(task).start()

  /**
   * The requests one loop thread dispatched in its current turn, started together at the turn's end by one virtual
   * thread, which starts a thread for each but the last and then runs the last itself. Each start from outside the
   * carriers wakes one; on a server with one CPU the carrier woken takes the CPU from the loop at once, runs what it was
   * given, and parks again: two context switches for every request or two. Started from a carrier, a thread goes to
   * that carrier's own queue, waking nobody: the loop's whole turn is handed over with one wake-up
   * (`docs/perf/2026-11-29-sync-batch-handover-epyc`). Only its loop thread touches a batch.
   */
  private final class Batch(threads: ThreadFactory) extends Runnable:
    private var tasks = new Array[Runnable](16)
    private var size = 0

    /** Adds `task`; the first of a turn has the loop start the batch once the turn's I/O is done. */
    def add(loop: EventLoop, task: Runnable): Unit =
      if size == tasks.length then tasks = java.util.Arrays.copyOf(tasks, size * 2)
      tasks(size) = task
      size += 1
      // After the task is in: a loop whose `execute` runs the batch at once still starts it
      if size == 1 then
        try loop.execute(this)
        catch
          case e: RejectedExecutionException =>
            tasks(0) = null
            size = 0
            throw e

    def run(): Unit =
      val turn = java.util.Arrays.copyOf(tasks, size)
      java.util.Arrays.fill(tasks.asInstanceOf[Array[AnyRef]], 0, size, null)
      size = 0
      threads.newThread(() => startAll(turn)).start()

    private def startAll(turn: Array[Runnable]): Unit =
      val last = turn.length - 1
      var i = 0
      while i < last do
        threads.newThread(turn(i)).start()
        i += 1
      turn(last).run()

  /** Each thread with a [[FirstOnLoop]] scheduler of its own, started at once: it runs on the loop, there is no hop. */
  private final class OnLoops(access: LoopScheduling.Access) extends Starter:
    protected def launch(loop: EventLoop, task: Runnable): Unit =
      access.newThread(FirstOnLoop(loop, access.carriers), task).start()

  /**
   * One thread's scheduler: its first run on `loop` (it is started there), every later one — after the thread waited —
   * on the JDK's carriers.
   */
  private final class FirstOnLoop(loop: EventLoop, carriers: Executor) extends Executor:
    @volatile private var started = false

    def execute(continuation: Runnable): Unit =
      if started then carriers.execute(continuation)
      else
        started = true
        loop.execute(continuation)

  /**
   * The JDK's builder of virtual threads with a given scheduler, and its default scheduler: both internal to
   * `java.lang`, reached when the JVM opens it to Rapier.
   */
  private object LoopScheduling:
    final class Access(builder: Constructor[?], unstarted: Method, val carriers: Executor):
      def newThread(scheduler: Executor, task: Runnable): Thread =
        unstarted.invoke(builder.newInstance(scheduler), task).asInstanceOf[Thread]

    val access: Either[String, Access] =
      try
        val builder =
          Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder").getDeclaredConstructor(classOf[Executor])
        builder.setAccessible(true)
        val unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", classOf[Runnable])
        val scheduler = Class.forName("java.lang.VirtualThread").getDeclaredField("DEFAULT_SCHEDULER")
        scheduler.setAccessible(true)
        Right(Access(builder, unstarted, scheduler.get(null).asInstanceOf[Executor]))
      catch
        case e: (ReflectiveOperationException | RuntimeException) =>
          Left(
            "starting virtual threads on the event loop (VirtualThreadStart.OnLoop) needs a scheduler of Rapier's " +
              "own, which the JDK allows only with the JVM option --add-opens java.base/java.lang=ALL-UNNAMED " +
              s"(here: ${e.getClass.getSimpleName}: ${e.getMessage}); add it, or use VirtualThreadStart.OnCarrier"
          )

  /** `Thread.ofVirtual().factory()`, public since JDK 21; none on an older JDK. */
  private val newFactory: Option[ThreadFactory] =
    try
      val builder = classOf[Thread].getMethod("ofVirtual").invoke(null)
      Some(Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder).asInstanceOf[ThreadFactory])
    catch case _: NoSuchMethodException => None
