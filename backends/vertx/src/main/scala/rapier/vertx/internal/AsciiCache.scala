package rapier.vertx.internal

import io.netty.util.AsciiString

/**
 * Response header names and values as Netty's `AsciiString`, which Vert.x's HTTP/1.1 encoder copies into the output at
 * once, where it writes a `String` a character at a time: in profiles of Rapier's Vert.x server on a GET, writing the
 * text of the headers took 1.8% of the server's CPU as `String`s, 0.45% as `AsciiString`s. (Netty's own encoder, on
 * Rapier's Netty backend, spends as much on them as on the bare Netty handler's.)
 *
 * The strings a server sends on every response are the same instances each time: header names, and an output's
 * content type, made once when the endpoint is compiled. One is converted the second time it is seen and read from the
 * cache from then on; a string made for one response (a length, a location, an ETag) is seen once and handed back as
 * it is, for nothing but its identity hash.
 *
 * One cache serves every event loop of every server: a direct-mapped table indexed by identity hash, whose entries
 * are immutable and each read and written as one reference, so that a loop never pairs one string with another's
 * bytes; two strings that take the same slot take turns in it, the loser written as a `String` meanwhile.
 */
private[vertx] final class AsciiCache(slots: Int):
  require(slots > 0 && Integer.bitCount(slots) == 1, s"slots must be a power of two: $slots")

  private val mask = slots - 1
  private val entries = new Array[AsciiCache.Entry | Null](slots)
  // The last string that missed in each slot: seen twice, it is converted. Racy on purpose: a lost write only delays.
  private val seen = new Array[String | Null](slots)

  /** `s` as an `AsciiString` if it has been seen before, else `s` itself. */
  def apply(s: String): CharSequence =
    val slot = System.identityHashCode(s) & mask
    val entry = entries(slot)
    if entry != null && (entry.source eq s) then entry.ascii
    else if seen(slot) eq s then
      val ascii = AsciiString(s)
      entries(slot) = AsciiCache.Entry(s, ascii)
      ascii
    else
      seen(slot) = s
      s

private[vertx] object AsciiCache:
  private final class Entry(val source: String, val ascii: AsciiString)

  /** The cache every Vert.x server of the JVM writes its response headers through. */
  val headers: AsciiCache = AsciiCache(256)
