package rapier.server.spi

import java.util.concurrent.atomic.LongAdder

/**
 * A request body read whole into one array, by a backend whose chunks arrive one by one: an array of the declared
 * length, else one that doubles as it fills (never past the limit); each chunk copied once, by the backend, into
 * [[room]] at [[size]], then counted with [[added]]. The array is counted in `held` while it fills, its result once
 * taken (the caller lets that go, with `held.add(-result.length)`, when it no longer holds it); [[drop]] lets go of
 * everything when the body can't be read. Open, so that a backend's reader of a body can be one, with no second object
 * per body.
 *
 * @param declared
 *   the body's declared length, or -1 when it declares none; a length past `limit` is not taken as the array's size
 */
open class BodyArray(declared: Long, limit: Long, held: LongAdder):
  private var bytes = new Array[Byte](if declared >= 0 && declared <= limit then declared.toInt else 256)
  private var filled = 0
  held.add(bytes.length)

  /** The bytes taken in so far. */
  def size: Int = filled

  /**
   * Why `n` more bytes can't be taken, or null when they can: past the limit (413), or past the declared length (a
   * body longer than its Content-Length, 400).
   */
  def refusal(n: Int): RequestSyntax.Invalid | Null =
    if filled.toLong + n > limit then Refusals.bodyTooLarge(limit)
    else if declared >= 0 && filled.toLong + n > declared then Refusals.BodyLongerThanLength
    else null

  /** The array to copy the next `n` bytes into, at [[size]]: grown when they don't fit (`n` must not be refused). */
  def room(n: Int): Array[Byte] =
    if filled + n > bytes.length then
      val grown = java.util.Arrays.copyOf(bytes, math.max(filled.toLong + n, bytes.length * 2L).min(limit).toInt)
      held.add(grown.length - bytes.length)
      bytes = grown
    bytes

  /** `n` bytes were copied into [[room]]. */
  def added(n: Int): Unit = filled += n

  /** The body, in an array of its exact size, counted in `held` by that size from now on. */
  def result(): Array[Byte] =
    if filled != bytes.length then
      held.add(filled - bytes.length)
      bytes = if filled == 0 then BodyArray.Empty else java.util.Arrays.copyOf(bytes, filled)
    bytes

  /** Lets go of what was taken in: the body can't be read. */
  def drop(): Unit =
    held.add(-bytes.length)
    bytes = BodyArray.Empty
    filled = 0

object BodyArray:
  private val Empty = new Array[Byte](0)
