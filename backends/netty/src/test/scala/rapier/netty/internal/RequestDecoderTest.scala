package rapier.netty.internal

import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.channel.embedded.EmbeddedChannel
import io.netty.handler.codec.http.{HttpContent, HttpDecoderConfig, HttpRequest, LastHttpContent}
import rapier.nettyhttp.InvalidRequest

import java.nio.charset.StandardCharsets.US_ASCII
import scala.collection.mutable.ListBuffer

/**
 * How [[RequestDecoder]] hands on a body of declared length: the reads that hold body bytes only as they are, the
 * pieces that share a read with a head as slices, the end marked by the empty last content; and the requests around
 * such a body decoded and checked as any other.
 */
class RequestDecoderTest extends munit.FunSuite:
  private val MaxChunk = 64

  private def channel(): EmbeddedChannel =
    EmbeddedChannel(RequestDecoder(HttpDecoderConfig().setMaxChunkSize(MaxChunk)))

  private def bytes(s: String): ByteBuf = Unpooled.copiedBuffer(s, US_ASCII)

  // What the decoder handed on so far, in order.
  private def outbound(ch: EmbeddedChannel): List[AnyRef] =
    val all = ListBuffer.empty[AnyRef]
    var next = ch.readInbound[AnyRef]()
    while next != null do
      all += next
      next = ch.readInbound[AnyRef]()
    all.toList

  private def text(pieces: List[AnyRef]): String =
    pieces.collect {
      case b: ByteBuf => b.toString(US_ASCII)
      case c: HttpContent => c.content.toString(US_ASCII)
    }.mkString

  private def release(pieces: List[AnyRef]): Unit = pieces.foreach(io.netty.util.ReferenceCountUtil.release)

  private def post(body: Int) = s"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: $body\r\n\r\n"

  test("a read holding only body bytes is handed on as it is; the body's start and end, sharing reads, as slices"):
    val ch = channel()
    ch.writeInbound(bytes(post(30) + "0123456789"))
    val first = outbound(ch)
    assert(first.head.isInstanceOf[HttpRequest], first)
    assertEquals(text(first.tail), "0123456789")
    val middle = bytes("abcdefghij")
    ch.writeInbound(middle)
    val second = outbound(ch)
    assert(second.head eq middle, "the read itself, neither sliced nor wrapped")
    ch.writeInbound(bytes("ABCDEFGHIJ" + "GET /next HTTP/1.1\r\nHost: a\r\n\r\n"))
    val third = outbound(ch)
    assertEquals(text(third.take(1)), "ABCDEFGHIJ")
    assert(third(1) eq LastHttpContent.EMPTY_LAST_CONTENT, third)
    third(2) match
      case next: HttpRequest =>
        assert(next.decoderResult.isSuccess, next.decoderResult)
        assertEquals(next.uri, "/next")
      case other => fail(s"the next request was not decoded: $other")
    assert(third(3).isInstanceOf[LastHttpContent], third)
    release(first ++ second ++ third)
    assert(middle.refCnt == 0, "released by whoever received it")
    assert(!ch.finish())

  test("a body ending with its read is followed by the empty last content, and the next head is decoded whole"):
    val ch = channel()
    ch.writeInbound(bytes(post(8)))
    ch.writeInbound(bytes("12345678"))
    val body = outbound(ch)
    assertEquals(text(body.tail), "12345678")
    assert(body.last eq LastHttpContent.EMPTY_LAST_CONTENT, body)
    ch.writeInbound(bytes("GET /again HTTP/1.1\r\nHost: a\r\n\r\n"))
    val next = outbound(ch)
    assertEquals(next.head.asInstanceOf[HttpRequest].uri, "/again")
    release(body ++ next)
    assert(!ch.finish())

  test("no piece is larger than the largest chunk, a read larger than that is sliced"):
    val ch = channel()
    ch.writeInbound(bytes(post(200)))
    ch.writeInbound(bytes("x" * 200))
    val pieces = outbound(ch)
    val sizes = pieces.collect { case b: ByteBuf => b.readableBytes }
    assertEquals(sizes, List(64, 64, 64, 8))
    assert(pieces.last eq LastHttpContent.EMPTY_LAST_CONTENT, pieces)
    release(pieces)
    assert(!ch.finish())

  test("the head after a body handed on is checked as the first was: a folded line in it is refused"):
    val ch = channel()
    ch.writeInbound(bytes(post(4) + "body"))
    val first = outbound(ch)
    ch.writeInbound(bytes("GET / HTTP/1.1\r\nHost: a\r\nFoo: bar\r\n Content-Length: 38\r\n\r\n"))
    val second = outbound(ch)
    second.head match
      case request: HttpRequest =>
        assert(request.decoderResult.cause.isInstanceOf[InvalidRequest], request.decoderResult)
      case other => fail(s"expected the refused request, got $other")
    release(first ++ second)
    ch.finishAndReleaseAll()

  test("a chunked body still comes as Netty's contents, and its declared length reads as none"):
    val ch = channel()
    val decoder = ch.pipeline.first.asInstanceOf[RequestDecoder]
    ch.writeInbound(bytes("POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n"))
    val pieces = outbound(ch)
    assertEquals(decoder.declaredLength, -1L)
    assert(pieces.tail.forall(_.isInstanceOf[HttpContent]), pieces)
    assertEquals(text(pieces.tail), "abcd")
    release(pieces)
    assert(!ch.finish())

  test("a connection closed mid-body ends nothing: no last content is made up"):
    val ch = channel()
    ch.writeInbound(bytes(post(100) + "part"))
    val pieces = outbound(ch)
    ch.finish()
    val after = outbound(ch)
    assert(!after.exists(_.isInstanceOf[LastHttpContent]), after)
    release(pieces ++ after)
