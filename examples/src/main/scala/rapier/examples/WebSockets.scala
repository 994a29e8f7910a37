package rapier.examples

import rapier.*
import rapier.netty.NettyServer
import rapier.server.*

import scala.concurrent.Future

/** A WebSocket, with Future logic, on Netty. */
object WebSockets:
  // start:shout
  /** `GET /shout`: a WebSocket that answers each text message in capitals. */
  val shout = endpoint.get.in("shout").out(webSocketBody[String, String])

  def server(port: Int): NettyServer.Binding =
    val logic = shout.serverLogicSuccess[Future](_ => Future.successful(WebSocketPipe.map(_.toUpperCase)))
    NettyServer().withPort(port).addEndpoint(logic).start()
  // end:shout
