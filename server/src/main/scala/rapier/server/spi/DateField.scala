package rapier.server.spi

/**
 * The `Date` every answer carries (RFC 9110 §6.6.1: an origin server with a clock sends one), for a server that does
 * not write it itself: made once a second and shared by every connection, a read of the clock and of one volatile
 * field per answer.
 */
object DateField:
  private final class Made(val second: Long, val value: String)
  @volatile private var made = Made(-1L, "")

  /** The date now, to the second, as HTTP writes it. */
  def now(): String =
    val second = System.currentTimeMillis() / 1000
    val current = made
    if current.second == second then current.value
    else
      val value = rapier.model.HttpDate.format(java.time.Instant.ofEpochSecond(second))
      made = Made(second, value)
      value
