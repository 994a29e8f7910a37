package rapier.nettyhttp

import io.netty.util.AsciiString
import rapier.server.spi.DateField

/** `spi.DateField` as the `AsciiString` Netty's encoder writes as it is, made anew once a second. */
object DateHeader:
  val Name: AsciiString = AsciiString.cached("date")

  private final class Made(val text: String, val value: AsciiString)
  @volatile private var made = Made("", AsciiString.EMPTY_STRING)

  /** The date now, to the second. */
  def now(): AsciiString =
    val text = DateField.now()
    val current = made
    if current.text eq text then current.value
    else
      val value = AsciiString(text)
      made = Made(text, value)
      value
