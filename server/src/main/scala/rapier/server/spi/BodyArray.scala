package rapier.server.spi

/**
 * A request body read whole into one array, by a backend whose chunks arrive one by one, each copied once into
 * [[array]] at [[size]] after [[reserve]] made room for it, then counted with [[added]].
 *
 * The array grows with the bytes that arrived, never with the length a client announced: a declared length of up to
 * [[BodyArray.WholeAtOnce]] is allocated at once (most bodies), a longer one starts at that size and doubles until
 * [[BodyArray.Ahead]] times what arrived reaches the declared length, which it then takes whole; a body of undeclared
 * length doubles from 256 bytes. So a client that announces a large body and sends a byte holds 64 KiB, and a body
 * that does arrive is copied about once more in all, in a few steps rather than one per chunk. Every array is taken
 * from the server's [[BodyBudget]]; what the budget can't give refuses the body (503).
 *
 * The array is counted in the budget while it fills, its result once taken (the caller gives that back, with
 * `budget.give(result.length)`, when it no longer holds it); [[drop]] lets go of everything when the body can't be
 * read. Reusable, [[begin]] after [[begin]]; open, so that a backend's reader of a body can be one, with no second
 * object per body.
 *
 * @param limit
 *   the most bytes a body may have (at most `Int.MaxValue - 8`)
 */
open class BodyArray(limit: Long, budget: BodyBudget):
  private var declared = -1L
  private var bytes = BodyArray.Empty
  private var filled = 0

  /** Starts a body of `declaredLength` bytes, or of a length not declared (-1); what was held before is let go. */
  def begin(declaredLength: Long): Unit =
    drop()
    declared = declaredLength

  /** The bytes taken in so far. */
  def size: Int = filled

  /**
   * Makes room for `n` more bytes at [[size]]: null when it did, else why they can't be taken: past the limit (413),
   * past the declared length (a body longer than its Content-Length, 400), or past the server's budget (503).
   */
  def reserve(n: Int): RequestSyntax.Invalid | Null =
    val needed = filled.toLong + n
    if needed > limit then Refusals.bodyTooLarge(limit)
    else if declared >= 0 && needed > declared then Refusals.BodyLongerThanLength
    else if needed <= bytes.length then null
    else grow(needed.toInt)

  /** The array to copy the next bytes into, at [[size]], once [[reserve]] made room for them. */
  def array: Array[Byte] = bytes

  /** `n` bytes were copied into [[array]]. */
  def added(n: Int): Unit = filled += n

  /** The body, in an array of its exact size, counted in the budget by that size from now on. */
  def result(): Array[Byte] =
    if filled != bytes.length then
      budget.give(bytes.length - filled)
      bytes = if filled == 0 then BodyArray.Empty else java.util.Arrays.copyOf(bytes, filled)
    val body = bytes
    bytes = BodyArray.Empty
    filled = 0
    body

  /** Lets go of what was taken in: the body can't be read, or is not wanted. */
  def drop(): Unit =
    if bytes.length != 0 then budget.give(bytes.length)
    bytes = BodyArray.Empty
    filled = 0

  private def grow(needed: Int): RequestSyntax.Invalid | Null =
    val capacity = nextCapacity(needed)
    if !budget.tryTake(capacity - bytes.length) then Refusals.Busy
    else
      bytes = java.util.Arrays.copyOf(bytes, capacity)
      null

  private def nextCapacity(needed: Int): Int =
    val doubled = math.max(needed.toLong, bytes.length * 2L)
    if declared < 0 then math.min(limit, math.max(doubled, BodyArray.FirstUndeclared)).toInt
    else if declared <= BodyArray.WholeAtOnce || needed.toLong * BodyArray.Ahead >= declared then declared.toInt
    else math.min(declared, math.max(doubled, BodyArray.WholeAtOnce)).toInt

object BodyArray:
  private val Empty = new Array[Byte](0)

  /** A declared length up to which the body's array is allocated whole at its first bytes. */
  val WholeAtOnce: Int = 64 * 1024

  /** How many times the bytes arrived a longer body's array may be, ahead of them. */
  val Ahead: Int = 16

  private val FirstUndeclared = 256
