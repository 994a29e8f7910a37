package rapier.netty.internal

import io.netty.channel.embedded.EmbeddedChannel
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame
import rapier.server.spi.{EventLoop, WebSocketChannel, WebSocketRelay, WebSocketUpgrade}
import rapier.webSocketBody

import scala.concurrent.duration.*

/**
 * The timers a Netty WebSocket sets (its close's wait for the client's answer, its idle check) are cancelled once its
 * connection is closed: left to fire, each holds the connection, its relay and the logic's streams until its time.
 * Netty's embedded channel shows what is still scheduled on the connection's loop.
 */
class NettyWebSocketTimersTest extends munit.FunSuite:
  private object Relay extends WebSocketRelay:
    def start(channel: WebSocketChannel, loop: EventLoop): Unit = ()
    def received(bytes: Array[Byte], text: Boolean): Unit = ()
    def written(): Unit = ()
    def ended(): Unit = ()

  private def upgraded(idleTimeout: Duration): (NettyWebSocket, EmbeddedChannel) =
    val output = webSocketBody[String, String].withIdleTimeout(idleTimeout)
    val socket = NettyWebSocket(WebSocketUpgrade(output, Relay))
    (socket, EmbeddedChannel(socket))

  private def scheduled(channel: EmbeddedChannel): Boolean = channel.runScheduledPendingTasks() != -1L

  test("the server's close, answered by the client, leaves no timer on the connection's loop"):
    val (socket, channel) = upgraded(Duration.Inf)
    socket.close(1000, "")
    val sent = channel.readOutbound[CloseWebSocketFrame]()
    try assertEquals(sent.statusCode, 1000)
    finally sent.release()
    assert(scheduled(channel), "the close waits for the client's answer for a while")
    channel.writeInbound(CloseWebSocketFrame(1000, ""))
    assert(!channel.isActive, "the client's answer closes the connection")
    assert(!scheduled(channel), "the wait for the client's close is cancelled once the connection is closed")

  test("a connection closed while the server's close waits for its answer leaves no timer either, nor an idle check"):
    val (socket, channel) = upgraded(30.seconds)
    assert(scheduled(channel), "the idle check is scheduled")
    socket.close(1001, "")
    channel.readOutbound[CloseWebSocketFrame]().release()
    // Through the pipeline, as a broken connection closes: the embedded channel's own close would cancel every timer
    channel.pipeline.close()
    assert(!channel.isActive)
    assert(!scheduled(channel), "no timer of the WebSocket's is left once its connection is closed")
