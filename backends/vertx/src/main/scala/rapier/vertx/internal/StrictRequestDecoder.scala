package rapier.vertx.internal

import io.netty.buffer.ByteBuf
import io.netty.channel.ChannelHandlerContext
import io.netty.handler.codec.DecoderResult
import io.netty.handler.codec.http.HttpRequest
import io.vertx.core.http.Http1ServerConfig
import io.vertx.core.http.impl.http1.VertxHttpRequestDecoder
import rapier.nettyhttp.{HeadScanner, InvalidRequest}
import rapier.server.spi.RequestSyntax

/**
 * Vert.x's request decoder, refusing obsolete line folding (RFC 9112 §5.2) as Rapier's Netty backend does. Vert.x's
 * decoder (Netty's) joins a header line that starts with a space or tab into the previous field's value: `Foo: bar`
 * followed by ` Content-Length: 38` becomes one field `Foo`, which a proxy in front may have read otherwise — a
 * request-smuggling shape. A [[HeadScanner]] looks at each head's lines before they are parsed; a folded head's request
 * comes out with a failed decoder result whose cause is an [[InvalidRequest]], which Vert.x hands to the server's
 * invalid-request handler, where [[RequestHandler.invalid]] refuses it.
 *
 * It replaces Vert.x's own decoder in each connection's pipeline ([[Connections]]), with the same configuration.
 */
private[vertx] final class StrictRequestDecoder(config: Http1ServerConfig) extends VertxHttpRequestDecoder(config):
  private val head = HeadScanner()

  override protected def decode(ctx: ChannelHandlerContext, buffer: ByteBuf, out: java.util.List[AnyRef]): Unit =
    head.scan(buffer)
    val before = out.size
    super.decode(ctx, buffer, out)
    head.follow(out, before, refuseFolded)

  // A function made once: following each decoding step allocates nothing.
  private val refuseFolded: HttpRequest => Unit = request =>
    if head.folded && request.decoderResult.isSuccess then
      request.setDecoderResult(DecoderResult.failure(StrictRequestDecoder.Folded))

private[vertx] object StrictRequestDecoder:
  /** The cause of a folded request's failed decoder result. */
  val Folded: InvalidRequest = InvalidRequest(RequestSyntax.ObsoleteFold)
