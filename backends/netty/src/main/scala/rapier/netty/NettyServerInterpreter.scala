package rapier.netty

import io.netty.channel.{Channel, ChannelInitializer, ChannelPipeline}
import io.netty.handler.codec.http.{HttpDecoderConfig, HttpResponseEncoder}
import rapier.netty.internal.{Connections, Http2Connection, Http2Exchange, HttpHandler, NettyTls, RequestDecoder}
import rapier.nettyhttp.JdkTls
import rapier.server.spi.{Admission, Runner}
import rapier.server.{Monad, ServerEndpoint, ServerInterpreter}

/**
 * Rapier endpoints as a Netty channel initializer, for servers bootstrapped by hand. [[NettyServer]] is the
 * ready-made one.
 *
 * The interpreter (routing trie, compiled endpoints) is built once, here; each channel gets a strict request decoder,
 * Netty's response encoder and its own small `HttpHandler`.
 */
final class NettyServerInterpreter(options: NettyServerOptions = NettyServerOptions.default):

  /**
   * An initializer serving `endpoints` on every channel it initializes; their logic in `F`, run by `runner`: `Future`
   * logic needs nothing more, an effect module brings the runner of its effect.
   */
  def initializer[F[_]](endpoints: List[ServerEndpoint[F]])(using Monad[F], Runner[F]): ChannelInitializer[Channel] =
    initializer(endpoints, Connections(options.maxConnections, Admission(options.backend)))

  private[netty] def initializer[F[_]](
      endpoints: List[ServerEndpoint[F]],
      connections: Connections
  )(using Monad[F], Runner[F]): ChannelInitializer[Channel] =
    val interpreter = ServerInterpreter(endpoints, options.serverOptions, connections.bodies)
    val decoderConfig = HttpDecoderConfig()
      .setMaxInitialLineLength(options.maxInitialLineLength)
      .setMaxHeaderSize(options.maxHeaderSize)
      .setMaxChunkSize(NettyServerInterpreter.MaxChunk)
    // Built at start: a key that can't be read fails it, before any connection
    val tls = options.tls.map(NettyTls.context(_, options.http2.isDefined))
    // Rounded up: a deadline under a millisecond is not 0, which Netty reads as none
    val handshakeMillis = (rapier.timeoutNanos(options.headerReadTimeout) + 999_999L) / 1_000_000L
    val runner = summon[Runner[F]]
    def http1(pipeline: ChannelPipeline, upgrade: Http2Connection | Null): Unit =
      val decoder = RequestDecoder(decoderConfig)
      pipeline.addLast("decoder", decoder)
      pipeline.addLast("encoder", HttpResponseEncoder())
      pipeline.addLast("rapier", HttpHandler(interpreter, runner, options, connections, decoder, upgrade))
    val http2 = options.http2.map { settings =>
      Http2Connection(
        settings,
        options.maxHeaderSize,
        rapier.timeoutNanos(options.idleTimeout),
        rapier.timeoutNanos(options.headerReadTimeout),
        options.shutdownTimeout.toMillis,
        pipeline => http1(pipeline, null),
        channel =>
          val exchange = Http2Exchange()
          channel.pipeline.addLast("exchange", exchange)
          channel.pipeline.addLast("rapier", HttpHandler(interpreter, runner, options, connections, exchange))
      )
    }
    // The h2c upgrade is offered on plain connections only: TLS ones choose by ALPN
    val h2c = http2.filter(_ => tls.isEmpty && options.http2.exists(_.cleartext)).orNull
    new ChannelInitializer[Channel]:
      override def initChannel(channel: Channel): Unit =
        if !connections.tryAdd(channel) then
          // Over the limit: closed before anything is read, so it costs the server no more than the accept
          channel.close()
          return
        val pipeline = channel.pipeline
        tls match
          case Some(secured) =>
            val handler = secured.context.newHandler(channel.alloc)
            // A client that never completes its handshake is closed when its head would have been due
            handler.setHandshakeTimeoutMillis(handshakeMillis)
            if !secured.refusesRenegotiation then pipeline.addLast("tls-records", JdkTls.NoRenegotiation(false))
            pipeline.addLast("tls", handler)
            http2 match
              case Some(connection) => pipeline.addLast("alpn", connection.negotiation())
              case None => http1(pipeline, null)
          case None =>
            if h2c != null then pipeline.addLast("preface", h2c.nn.preface())
            http1(pipeline, h2c)

object NettyServerInterpreter:
  /**
   * The largest piece of a body the decoder hands on at once, and the most [[NettyServer]] reads at once: 256 KiB.
   * A server bootstrapped by hand reads what its own `RECVBUF_ALLOCATOR` allows (Netty's default: up to 64 KiB).
   */
  val MaxChunk: Int = 256 * 1024
