package rapier.nettyhttp

import io.netty.handler.codec.http2.{
  DecoratingHttp2ConnectionDecoder,
  DefaultHttp2ConnectionDecoder,
  DefaultHttp2FrameReader,
  Http2ConnectionHandler,
  Http2FrameTypes,
  Http2InboundFrameLogger
}

import java.lang.reflect.Field

/**
 * Whether Netty's HTTP/2 codec is partway through a client's header block (a HEADERS frame and its CONTINUATIONs, RFC
 * 9113 §4.3), read from its frame reader. Netty holds a block until its last frame with no deadline, and shows no
 * sign of one outside the reader, so its state is read by reflection; touched only by the connection's event loop.
 */
private[rapier] final class HeaderBlocks private (reader: DefaultHttp2FrameReader, fields: HeaderBlocks.Fields):

  /** The stream whose header block is being received, or 0: a HEADERS or CONTINUATION frame begun, or a block open. */
  def pending: Int =
    val inFrame = !fields.readingHeaders.getBoolean(reader) && {
      val kind = fields.frameType.getByte(reader)
      kind == Http2FrameTypes.HEADERS || kind == Http2FrameTypes.CONTINUATION
    }
    if inFrame || fields.continuation.get(reader) != null then fields.streamId.getInt(reader) else 0

private[rapier] object HeaderBlocks:
  private final class Fields:
    val readingHeaders: Field = field(classOf[DefaultHttp2FrameReader], "readingHeaders")
    val frameType: Field = field(classOf[DefaultHttp2FrameReader], "frameType")
    val streamId: Field = field(classOf[DefaultHttp2FrameReader], "streamId")
    val continuation: Field = field(classOf[DefaultHttp2FrameReader], "headersContinuation")
    val delegate: Field = field(classOf[DecoratingHttp2ConnectionDecoder], "delegate")
    val frameReader: Field = field(classOf[DefaultHttp2ConnectionDecoder], "frameReader")
    val loggedReader: Field = field(classOf[Http2InboundFrameLogger], "reader")

  private def field(owner: Class[?], name: String): Field =
    val f = owner.getDeclaredField(name)
    f.setAccessible(true)
    f

  private lazy val fields: Either[String, Fields] =
    try Right(Fields())
    catch case e: (ReflectiveOperationException | RuntimeException) => Left(e.toString)

  /**
   * The header blocks of `handler`'s connection, or null where its reader is not Netty's own, or this Netty keeps
   * its state otherwise (then no block is timed, and the reason is logged once).
   */
  def of(handler: Http2ConnectionHandler): HeaderBlocks | Null = fields match
    case Left(why) => unavailable(why)
    case Right(f) =>
      try
        var decoder: AnyRef = handler.decoder
        while decoder.isInstanceOf[DecoratingHttp2ConnectionDecoder] do decoder = f.delegate.get(decoder)
        var reader: AnyRef | Null = decoder match
          case d: DefaultHttp2ConnectionDecoder => f.frameReader.get(d)
          case _ => null
        if reader.isInstanceOf[Http2InboundFrameLogger] then reader = f.loggedReader.get(reader)
        reader match
          case r: DefaultHttp2FrameReader => new HeaderBlocks(r, f)
          case other =>
            unavailable(s"its frame reader is ${if other == null then "unknown" else other.getClass.getName}")
      catch case e: (ReflectiveOperationException | RuntimeException) => unavailable(e.toString)

  @volatile private var warned = false

  private def unavailable(why: String): Null =
    if !warned then
      warned = true
      org.slf4j.LoggerFactory
        .getLogger(classOf[HeaderBlocks])
        .warn(s"HTTP/2 header blocks are not timed: Netty's frame reader could not be read ($why)")
    null
