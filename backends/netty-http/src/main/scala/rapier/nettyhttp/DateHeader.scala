package rapier.nettyhttp

import io.netty.util.AsciiString

/**
 * The `Date` every answer carries (RFC 9110 §6.6.1: an origin server with a clock sends one), made once a second and
 * shared by every connection: a read of the clock and of one volatile field per answer. Netty's encoder writes an
 * `AsciiString` as it is.
 */
object DateHeader:
  val Name: AsciiString = AsciiString.cached("date")

  private final class Made(val second: Long, val value: AsciiString)
  @volatile private var made = Made(-1L, AsciiString.EMPTY_STRING)

  /** The date now, to the second. */
  def now(): AsciiString =
    val second = System.currentTimeMillis() / 1000
    val current = made
    if current.second == second then current.value
    else
      val value = AsciiString(rapier.model.HttpDate.format(java.time.Instant.ofEpochSecond(second)))
      made = Made(second, value)
      value
