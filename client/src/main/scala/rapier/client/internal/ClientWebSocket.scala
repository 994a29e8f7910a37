package rapier.client.internal

import rapier.*
import rapier.client.ClientException
import rapier.flow.{Demand, QueueRelay}

import java.io.ByteArrayOutputStream
import java.net.http.WebSocket
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{CompletionStage, Flow}
import java.util.concurrent.atomic.AtomicBoolean

/**
 * One WebSocket a client opened, as the pipe a `webSocketBody[In, Out]` endpoint names: given the client's messages
 * (a publisher of `In`), the server's (a publisher of `Out`). The client's are sent one at a time, the next asked for
 * once the last is written; the server's are read from the connection only as the subscriber asks for them (the JDK's
 * `WebSocket.request`), whole, each decoded by the endpoint's codec. The client's publisher completing closes the
 * WebSocket normally; the server closing it with 1000 completes the server's, with another code fails it.
 */
private[client] final class ClientWebSocket[In, Out](
    in: WebSocketCodec[In],
    out: WebSocketCodec[Out],
    maxMessageSize: Int
) extends QueueRelay[Out],
      WebSocket.Listener,
      Flow.Publisher[Out]:
  private val subscribed = AtomicBoolean(false)
  private val piped = AtomicBoolean(false)
  private val text = java.lang.StringBuilder()
  private val binary = ByteArrayOutputStream()
  @volatile private var socket: WebSocket | Null = null
  @volatile private var subscriber: Flow.Subscriber[? >: Out] | Null = null

  /** The pipe the call answers with: runs once, with the client's messages. */
  val pipe: Flow.Publisher[In] => Flow.Publisher[Out] = messages =>
    if !piped.compareAndSet(false, true) then throw IllegalStateException("a WebSocket's pipe runs once")
    messages.subscribe(Sender())
    this

  protected def downstream: Flow.Subscriber[? >: Out] | Null = subscriber
  protected def askMore(): Unit = socket.nn.request(1)

  protected def stopSource(): Unit =
    val ws = socket
    if ws != null && !ws.nn.isOutputClosed then ws.nn.sendClose(WebSocket.NORMAL_CLOSURE, "")

  override def onOpen(ws: WebSocket): Unit = socket = ws // nothing asked for until the subscriber asks

  override def onText(ws: WebSocket, data: CharSequence, last: Boolean): CompletionStage[?] | Null =
    text.append(data)
    if text.length > maxMessageSize then tooLarge(ws)
    else if last then
      val whole = text.toString
      text.setLength(0)
      received(ws, whole.getBytes(UTF_8), isText = true)
    else ws.request(1) // the rest of the message
    null

  override def onBinary(ws: WebSocket, data: ByteBuffer, last: Boolean): CompletionStage[?] | Null =
    val bytes = new Array[Byte](data.remaining)
    data.get(bytes)
    binary.write(bytes)
    if binary.size > maxMessageSize then tooLarge(ws)
    else if last then
      val whole = binary.toByteArray
      binary.reset()
      received(ws, whole, isText = false)
    else ws.request(1)
    null

  override def onClose(ws: WebSocket, code: Int, reason: String): CompletionStage[?] | Null =
    end(if code == WebSocket.NORMAL_CLOSURE then null else ClientException.WebSocketClosed(code, reason))
    null

  override def onError(ws: WebSocket, error: Throwable): Unit = end(error)

  private def received(ws: WebSocket, bytes: Array[Byte], isText: Boolean): Unit =
    if isText != out.text then fail(ws, 1003, s"a ${if isText then "text" else "binary"} message, not ${out.kind}")
    else
      out.decode(bytes) match
        case DecodeResult.Value(v) => offer(v)
        case failure: DecodeResult.Failure => fail(ws, 1007, s"the message ${failure.describe}")

  private def tooLarge(ws: WebSocket): Unit = fail(ws, 1009, s"a message over $maxMessageSize bytes")

  private def fail(ws: WebSocket, code: Int, detail: String): Unit =
    end(ClientException.UndecodableMessage(detail))
    ws.sendClose(code, "")

  def subscribe(s: Flow.Subscriber[? >: Out]): Unit =
    if subscribed.compareAndSet(false, true) then
      subscriber = s
      s.onSubscribe(this)
      drain()
    else Demand.refuse(s, "a WebSocket's messages are read once")

  /** Sends the client's messages, one written before the next is asked for; their end closes the WebSocket. */
  private final class Sender extends Flow.Subscriber[In]:
    private var subscription: Flow.Subscription | Null = null

    def onSubscribe(s: Flow.Subscription): Unit =
      subscription = s
      s.request(1)

    def onNext(message: In): Unit =
      val ws = socket.nn
      val bytes = in.encode(message)
      val sent =
        if in.text then ws.sendText(String(bytes, UTF_8), true) else ws.sendBinary(ByteBuffer.wrap(bytes), true)
      sent.whenComplete((_, failure) =>
        if failure == null then subscription.nn.request(1) else subscription.nn.cancel()
      )

    def onError(t: Throwable): Unit = socket.nn.abort()

    def onComplete(): Unit =
      val ws = socket.nn
      if !ws.isOutputClosed then ws.sendClose(WebSocket.NORMAL_CLOSURE, "")
