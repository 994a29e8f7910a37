package rapier.netty.internal

import io.netty.channel.{ChannelFuture, ChannelHandlerContext}
import io.netty.handler.codec.http.{HttpChunkedInput, HttpVersion, LastHttpContent}
import io.netty.handler.stream.{ChunkedNioFile, ChunkedWriteHandler}
import org.slf4j.LoggerFactory
import rapier.model.StatusCode
import rapier.netty.NettyServerOptions
import rapier.server.spi.{EventLoop, ResponseRules, ResponseStream}
import rapier.server.{Problem, ServerResponse}

/**
 * The responses of one connection, written in request order (RFC 9112 §9.3.2) whatever order the logic completes in:
 * each request takes a sequence number ([[take]]), and a response that is ready before its turn waits in a map — the
 * only case that costs an object. A response whose body is in memory is written at once, a file as a zero-copy region
 * after its head, a streamed body chunk by chunk by a [[ResponseWriter]], the responses after it waiting until it ends;
 * a WebSocket's 101 hands the connection over. Touched only by the connection's event loop (`loop`).
 *
 * What a written response means for the connection (whether it stays open, a streamed request body let go, the flush)
 * is the [[ResponseSender.Connection]]'s.
 */
private[netty] final class ResponseSender(
    ctx: ChannelHandlerContext,
    loop: EventLoop,
    options: NettyServerOptions,
    connections: Connections,
    connection: ResponseSender.Connection,
    zeroCopy: Boolean
):
  import ResponseSender.{FileChunk, Ready, log}

  // `writer` writes the streamed response in turn, if any.
  private var writer: ResponseWriter | Null = null
  private var nextSequence = 0
  private var nextToWrite = 0
  private var waiting: java.util.HashMap[Integer, Ready] | Null = null

  /** The next request's place in the order of responses. */
  def take(): Int =
    val sequence = nextSequence
    nextSequence += 1
    sequence

  /**
   * A request's response, ready: written now if it is its turn, then those that were waiting for it; held until then
   * otherwise. `body` is the request's streamed body, if any.
   */
  def respond(
      sequence: Int,
      response: ServerResponse,
      keepAlive: Boolean,
      head: Boolean,
      version: HttpVersion,
      body: NettyBody | Null = null
  ): Unit =
    val persistent = keepAlive && !connections.draining
    if sequence != nextToWrite then
      // Ready before its turn: only then is it worth an object to wait in.
      if waiting == null then waiting = java.util.HashMap()
      waiting.nn.put(sequence, Ready(response, persistent, head, version, body))
    else
      send(response, persistent, head, version, body)
      sendReady()

  /** Responses that were ready early, now in turn; none while a streamed one is being written. */
  private def sendReady(): Unit =
    while writer == null && waiting != null && !waiting.nn.isEmpty && waiting.nn.containsKey(nextToWrite) do
      val ready = waiting.nn.remove(nextToWrite)
      send(ready.response, ready.keepAlive, ready.head, ready.version, ready.body)

  /**
   * Writes a response in turn: at once when its body is in memory; a file's region after its head; a body pulled
   * chunk by chunk by a [[ResponseWriter]], the responses after it waiting until it ends.
   */
  private def send(
      r: ServerResponse,
      keepAlive: Boolean,
      head: Boolean,
      version: HttpVersion,
      body: NettyBody | Null
  ): Unit =
    if r.webSocket != null then upgradeTo(r, version) else sendHttp(r, keepAlive, head, version, body)

  /** The 101 of a WebSocket; then the connection is the WebSocket's ([[NettyWebSocket]]), and this handler leaves it. */
  private def upgradeTo(r: ServerResponse, version: HttpVersion): Unit =
    nextToWrite += 1
    connection.upgraded()
    if !ctx.channel.isActive then r.abandon()
    else
      ctx.writeAndFlush(NettyResponses.of(r, keepAlive = true, head = false, version))
      NettyWebSocket.upgrade(ctx, r.webSocket.nn)

  private def sendHttp(
      r: ServerResponse,
      keepAlive: Boolean,
      head: Boolean,
      version: HttpVersion,
      body: NettyBody | Null
  ): Unit =
    val streamed = r.stream
    // A streamed request's connection stays open only if its body has arrived whole by now (see `sent`).
    val persistent = keepAlive && (body == null || body.nn.keepsConnection)
    if streamed == null then sent(ctx.write(NettyResponses.of(r, persistent, head, version)), persistent, body)
    else
      val bodyless = head || !ResponseRules.hasContentLength(r.status)
      streamed match
        case file: ResponseStream.File if !bodyless => sendFile(r, file, persistent, version, body)
        case chunks: ResponseStream.Chunks if !bodyless =>
          // Delimited by the connection's end when HTTP/1.0 can't be told the length. A streamed request's body may
          // arrive while this one is written (an echo): whether it did is asked once the response is sent.
          val keeps = keepAlive && (chunks.length >= 0 || version != HttpVersion.HTTP_1_0)
          val events = new ResponseWriter.Events:
            def sent(last: ChannelFuture): Unit = streamSent(last, keeps, body)
            def failedBeforeHead(cause: Throwable): Unit =
              log.error("A response body's source failed before the response started", cause)
              writer = null
              val problem =
                Problem(StatusCode.InternalServerError, "The server failed to produce this response's body.")
              send(options.serverOptions.problemRenderer(problem), keepAlive, head, version, body)
              sendReady()
          writer = ResponseWriter(ctx, loop, chunks, NettyResponses.headOf(r, chunks.length, keeps, version), events)
          writer.nn.start()
        case _ =>
          streamed.nn.abandon()
          val length = if streamed.nn.length >= 0 then streamed.nn.length else 0L
          ctx.write(NettyResponses.headOf(r, length, persistent, version))
          sent(ctx.write(LastHttpContent.EMPTY_LAST_CONTENT), persistent, body)

  /**
   * A file's region, zero-copy where the bytes go to the socket as they are: Netty hands it over from the file
   * (`sendfile`), never through the heap.
   */
  private def sendFile(
      r: ServerResponse,
      file: ResponseStream.File,
      keepAlive: Boolean,
      version: HttpVersion,
      body: NettyBody | Null
  ): Unit =
    val channel =
      try java.nio.channels.FileChannel.open(file.path)
      catch case scala.util.control.NonFatal(e) => e
    channel match
      case open: java.nio.channels.FileChannel =>
        ctx.write(NettyResponses.headOf(r, file.length, keepAlive, version))
        if zeroCopy then
          ctx.write(io.netty.channel.DefaultFileRegion(open, file.offset, file.length))
          sent(ctx.write(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive, body)
        else
          // Through TLS or HTTP/2's frames, read into buffers: as fast as the connection takes them
          if ctx.pipeline.get(classOf[ChunkedWriteHandler]) == null then
            ctx.pipeline.addBefore(ctx.name, "chunks", ChunkedWriteHandler())
          val chunks = ChunkedNioFile(open, file.offset, file.length, FileChunk)
          sent(ctx.write(HttpChunkedInput(chunks)), keepAlive, body)
      case e: Throwable =>
        log.error(s"The file of a response could not be opened: ${file.path}", e)
        val problem = Problem(StatusCode.InternalServerError, "The server failed to produce this response's body.")
        sent(
          ctx.write(NettyResponses.of(options.serverOptions.problemRenderer(problem), keepAlive, false, version)),
          keepAlive,
          body
        )

  private def streamSent(last: ChannelFuture, keepAlive: Boolean, body: NettyBody | Null): Unit =
    writer = null
    sent(last, keepAlive, body)
    sendReady()

  /** A response is written (or its last part is on its way): the next is in turn, and the connection is told. */
  private def sent(future: ChannelFuture, keepAlive: Boolean, body: NettyBody | Null): Unit =
    nextToWrite += 1
    connection.sent(future, keepAlive, body)

  /** The connection can take more: the streamed response being written, if any, goes on. */
  def writable(): Unit = if writer != null then writer.nn.writable()

  /** The connection is gone: the streamed response stops, and the responses waiting for their turn are abandoned. */
  def stop(): Unit =
    if writer != null then writer.nn.stop()
    if waiting != null then waiting.nn.values.forEach(_.response.abandon())

private[netty] object ResponseSender:
  private val log = LoggerFactory.getLogger(classOf[ResponseSender])

  /** The size of the pieces a file is read in when it can't be sent zero-copy. */
  private val FileChunk = 64 * 1024

  /** What a connection does as its responses leave. */
  trait Connection:
    /** A WebSocket's 101 is being written: the connection is the WebSocket's from now on. */
    def upgraded(): Unit

    /**
     * A response is written, or its last part is on its way (`future`): the connection stays open (`keepAlive`) or
     * closes after it; `body` is its request's streamed body, if any, to be let go.
     */
    def sent(future: ChannelFuture, keepAlive: Boolean, body: NettyBody | Null): Unit

  final class Ready(
      val response: ServerResponse,
      val keepAlive: Boolean,
      val head: Boolean,
      val version: HttpVersion,
      val body: NettyBody | Null
  )
