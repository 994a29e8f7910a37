package rapier.nettyhttp

import io.netty.buffer.ByteBuf
import io.netty.channel.{ChannelHandlerContext, ChannelInboundHandlerAdapter}
import io.netty.handler.ssl.{DelegatingSslContext, SslContext}
import rapier.server.Tls
import rapier.server.spi.TlsRecords

import javax.net.ssl.SSLEngine

/**
 * A server's [[rapier.server.Tls]] on a JDK engine behind Netty's `SslHandler`: each engine given the settings'
 * versions, cipher suites and groups as it is made ([[configured]]), and a client's renegotiation, which the JDK's
 * engine would honour, refused ([[NoRenegotiation]]). OpenSSL's engine needs neither: its context takes them, and it
 * refuses renegotiation.
 */
object JdkTls:
  /** `context`, each of its engines configured by `tls`. */
  def configured(context: SslContext, tls: Tls): SslContext =
    new DelegatingSslContext(context):
      override protected def initEngine(engine: SSLEngine): Unit =
        val parameters = engine.getSSLParameters
        tls.configure(parameters, engine.getSupportedCipherSuites)
        engine.setSSLParameters(parameters)

  /**
   * Reads a connection's TLS records before its `SslHandler` decrypts them, and closes the connection at a
   * renegotiation its client starts. Put in place once the handshake is over (`afterHandshake`), it takes the next
   * bytes for a record's start.
   */
  final class NoRenegotiation(afterHandshake: Boolean) extends ChannelInboundHandlerAdapter:
    private val records = TlsRecords(afterHandshake)
    private val bytes = BufBytes()

    override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit = msg match
      case buf: ByteBuf =>
        bytes.buf = buf
        if records.feed(bytes, buf.readerIndex, buf.writerIndex) then
          buf.release()
          NoRenegotiation.log.debug("Closing a TLS connection whose client started a renegotiation")
          ctx.close()
        else ctx.fireChannelRead(msg)
      case _ => ctx.fireChannelRead(msg)

  object NoRenegotiation:
    private val log = org.slf4j.LoggerFactory.getLogger(classOf[NoRenegotiation])
