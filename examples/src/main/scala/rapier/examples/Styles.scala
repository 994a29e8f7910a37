package rapier.examples

import cats.effect.{IO, Resource}
import rapier.*
import rapier.netty.NettyServer
import rapier.netty.cats.NettyCatsServer
import rapier.netty.sync.NettySyncServer
import rapier.netty.zioeffect.NettyZioServer
import rapier.server.*
import rapier.zioeffect.{zServerLogic, zServerLogicNeeding}
import zio.{Scope, UIO, ULayer, ZIO, ZLayer}

import scala.concurrent.Future

/** One endpoint, served with `Future` logic, with cats-effect's `IO`, with ZIO, and in direct style. */
object Styles:
  // start:styles
  /** `GET /greet/{name}`: described once, whatever runs it. */
  val greet: Endpoint[Unit, String, Unit, String] = endpoint.get.in("greet" / path[String]("name")).out(stringBody)

  // Future logic, on Netty: start() gives the running server.
  def withFuture(port: Int): NettyServer.Binding =
    val logic = greet.serverLogicSuccess[Future](name => Future.successful(s"Hello, $name"))
    NettyServer().withPort(port).addEndpoint(logic).start()

  // IO logic: start() gives the server as a Resource[IO, Binding]. Logic that answers at once runs on the event loop:
  // what blocks goes in IO.blocking.
  def withIO(port: Int): Resource[IO, NettyServer.Binding] =
    val logic = greet.serverLogicSuccess[IO](name => IO.pure(s"Hello, $name"))
    NettyCatsServer[IO]().withPort(port).addEndpoint(logic).start()

  // ZIO logic: start() gives the server within a Scope; zServerLogic takes a ZIO[Any, E, O], its failure the
  // endpoint's error output.
  def withZio(port: Int): ZIO[Scope, Throwable, NettyServer.Binding] =
    val logic = greet.zServerLogic(name => ZIO.succeed(s"Hello, $name"))
    NettyZioServer().withPort(port).addEndpoint(logic).start()

  // Direct style: plain code that may block, one virtual thread per request (JDK 21 or newer).
  def direct(port: Int): NettyServer.Binding =
    val logic = greet.serverLogicSuccess[Identity](name => s"Hello, $name")
    NettySyncServer().withPort(port).addEndpoint(logic).start()
  // end:styles

  // start:zio-environment
  /** A service the logic needs, from ZIO's environment. */
  trait Greetings:
    def greet(name: String): UIO[String]

  object Greetings:
    val live: ULayer[Greetings] = ZLayer.succeed(name => ZIO.succeed(s"Hello, $name"))

  // The logic names what it needs; the server's start needs it too, and gives it to every request's logic.
  def needingGreetings(port: Int): ZIO[Greetings & Scope, Throwable, NettyServer.Binding] =
    val logic = greet.zServerLogicNeeding[Greetings](name => ZIO.serviceWithZIO[Greetings](_.greet(name)))
    NettyZioServer.needing[Greetings].withPort(port).addEndpoint(logic).start()
  // end:zio-environment
