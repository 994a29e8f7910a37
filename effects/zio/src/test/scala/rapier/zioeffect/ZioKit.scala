package rapier.zioeffect

import rapier.server.{Binding, ServerEndpoint}
import rapier.testkit.{RunningServer, TestServer, TestServerConfig}
import zio.{Exit, RIO, Runtime, Scope, Task, Unsafe, ZEnvironment, ZIO}

import scala.concurrent.Future

/** How a ZIO server runs the shared test kit: its `Future` endpoints turned into `Task`, the server scoped. */
object ZioKit:
  /**
   * A kit endpoint's logic as a `Task`, as ZIO logic would be: a value at once when the kit's future is complete
   * already, an async boundary when it completes later. The future is made when the `Task` runs.
   */
  def toTask(e: ServerEndpoint[Future]): ServerEndpoint[Task] = e.mapEffect(fromFuture)

  private val fromFuture: [A] => Future[A] => Task[A] = [A] =>
    (future: Future[A]) =>
      future.value match
        case Some(done) => Exit.fromTry(done)
        case None => ZIO.fromFuture(_ => future)

  /** Runs `effect` to its end, as a test's main would; its failure thrown as it is. */
  def run[A](effect: Task[A]): A = Unsafe.unsafely(Runtime.default.unsafe.run(effect)) match
    case Exit.Success(a) => a
    case Exit.Failure(cause) => throw cause.squash

  /** A server started in a scope of its own with `env` given to it, closed when the test stops it. */
  def running[R, B <: Binding](start: ZIO[R & Scope, Throwable, B], env: ZEnvironment[R]): RunningServer =
    val scope = run(Scope.make)
    val binding = run(scope.extend(start.provideSomeEnvironment[Scope](env ++ _)))
    new RunningServer:
      def port: Int = binding.port
      def stop(): Unit = run(scope.close(Exit.unit))
      def bodyBytesHeld: Long = binding.bodyBytesHeld

  /** A kit server for a ZIO backend: `start` gives it `Task` endpoints. */
  abstract class ZioTestServer extends TestServer:
    /** Starts `endpoints` whose logic needs `R`, in `env`. */
    def startNeeding[R](
        endpoints: List[ServerEndpoint[[A] =>> RIO[R, A]]],
        env: ZEnvironment[R],
        config: TestServerConfig
    ): RunningServer

    final def startZio(endpoints: List[ServerEndpoint[Task]], config: TestServerConfig): RunningServer =
      startNeeding[Any](endpoints, ZEnvironment.empty, config)
    final def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
      startZio(endpoints.map(toTask), config)
