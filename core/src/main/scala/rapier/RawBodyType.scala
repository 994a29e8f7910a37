package rapier

import java.nio.charset.Charset

/** How a body is held before its codec decodes it, or after its codec encodes it. */
sealed trait RawBodyType[R]

object RawBodyType:
  /** Text in a charset. */
  final case class StringBody(charset: Charset) extends RawBodyType[String]

  /** Bytes as they are. */
  case object ByteArrayBody extends RawBodyType[Array[Byte]]
