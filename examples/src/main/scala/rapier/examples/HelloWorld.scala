package rapier.examples

import rapier.*
import rapier.netty.NettyServer
import rapier.server.*

import scala.concurrent.Future

/**
 * The smallest Rapier server: `GET /hello?name=...` answers a greeting.
 *
 * Run it with `./sbt "examples/runMain rapier.examples.runHelloWorld"`, then `curl 'localhost:8080/hello?name=you'`.
 */
object HelloWorld:
  val hello: Endpoint[Unit, Option[String], Unit, String] =
    endpoint.get
      .in("hello")
      .in(query[Option[String]]("name").description("who to greet"))
      .out(stringBody)
      .name("hello")

  val helloServer: ServerEndpoint[Future] =
    hello.serverLogicSuccess(name => Future.successful(s"Hello, ${name.getOrElse("world")}!"))

  @main def runHelloWorld(args: String*): Unit =
    val port = CommandLine.port("runHelloWorld", args)
    val binding = NettyServer().withPort(port).addEndpoint(helloServer).start().stopOnShutdown()
    println(s"Try: curl 'http://localhost:${binding.port}/hello?name=you'   (Ctrl-C stops)")
    binding.awaitStop()
