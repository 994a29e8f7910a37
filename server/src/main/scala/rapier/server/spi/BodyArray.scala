package rapier.server.spi

import java.util.concurrent.atomic.AtomicLong

/**
 * A request body read whole by a backend whose chunks arrive in a type of its own (fs2's `Chunk`, pekko's
 * `ByteString`): one array of the declared length, else one that doubles as it fills; each chunk copied once, by the
 * backend, into [[room]] at [[size]], then counted with [[added]]. What it holds is counted in `held` as it arrives, and
 * let go by [[drop]] when the body can't be read (once read, the caller lets it go when the request is answered).
 *
 * @param declared
 *   the body's declared length, or -1 when it declares none; a length past `limit` is not taken as the array's size
 */
final class BodyArray(declared: Long, limit: Long, held: AtomicLong):
  private var bytes = new Array[Byte](if declared >= 0 && declared <= limit then declared.toInt else 256)
  private var filled = 0

  /** The bytes taken in so far. */
  def size: Int = filled

  /** The array to copy the next `n` bytes into, at [[size]]: grown when they don't fit. */
  def room(n: Int): Array[Byte] =
    if filled + n > bytes.length then bytes = java.util.Arrays.copyOf(bytes, math.max(filled + n, bytes.length * 2))
    bytes

  /** `n` bytes were copied into [[room]]. */
  def added(n: Int): Unit =
    filled += n
    held.addAndGet(n)

  /** The body, in an array of its exact size. */
  def result(): Array[Byte] = if filled == bytes.length then bytes else java.util.Arrays.copyOf(bytes, filled)

  /** Lets go of what was taken in: the body can't be read. */
  def drop(): Unit =
    held.addAndGet(-filled)
    filled = 0
