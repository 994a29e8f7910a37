package rapier.cats

import cats.effect.unsafe.IORuntime
import cats.effect.{IO, Resource}
import rapier.server.{Binding, ServerEndpoint}
import rapier.testkit.{RunningServer, TestServer, TestServerConfig}

import scala.concurrent.Future

/** How a cats-effect server runs the shared test kit: its `Future` endpoints turned into `IO`, the server a resource. */
object CatsKit:
  given IORuntime = IORuntime.global

  /**
   * A kit endpoint's logic in `IO`, as `IO` logic would be: a value at once (`IO.pure`, `IO.raiseError`) when the kit's
   * future is complete already, an async boundary when it completes later. The future is made when the `IO` runs.
   */
  def toIO(e: ServerEndpoint[Future]): ServerEndpoint[IO] = e.mapEffect(fromFuture)

  private val fromFuture: [A] => Future[A] => IO[A] = [A] =>
    (future: Future[A]) =>
      future.value match
        case Some(done) => IO.fromTry(done)
        case None => IO.fromFuture(IO.pure(future))

  /** A server resource, used until the test stops it. */
  def running[B <: Binding](resource: Resource[IO, B]): RunningServer =
    val (binding, release) = resource.allocated.unsafeRunSync()
    new RunningServer:
      def port: Int = binding.port
      def stop(): Unit = release.unsafeRunSync()
      def bodyBytesHeld: Long = binding.bodyBytesHeld

  /** A kit server for a cats-effect backend: `start` gives it `IO` endpoints. */
  abstract class CatsTestServer extends TestServer:
    def startIO(endpoints: List[ServerEndpoint[IO]], config: TestServerConfig): RunningServer
    final def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
      startIO(endpoints.map(toIO), config)
