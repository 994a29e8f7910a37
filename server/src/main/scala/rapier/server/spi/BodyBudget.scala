package rapier.server.spi

import java.util.concurrent.atomic.AtomicLong

/**
 * The request-body bytes a server holds in memory, against one budget for all its connections. A body read whole takes
 * its array from the budget as the array grows ([[BodyArray]]); one that would take the budget past [[limit]] is refused
 * with [[Refusals.Busy]] (503, `Retry-After`) instead of held. Chunks of streamed bodies waiting for their readers are
 * counted too but never refused: each connection queues a bounded amount of them ([[ConnectionBody.HighWater]]).
 *
 * One atomic add per change, and changes come per array, not per chunk: a body that arrives with its head costs two.
 *
 * @param limit
 *   the most bytes held at once
 */
final class BodyBudget(val limit: Long):
  require(limit > 0, s"a body budget is positive, not $limit")
  private val used = AtomicLong()

  /** Takes `n` bytes if they fit: false, taking nothing, when they would pass the limit. */
  def tryTake(n: Long): Boolean =
    if used.addAndGet(n) <= limit then true
    else
      used.addAndGet(-n)
      false

  /** Counts `n` bytes in, whatever the limit: what is held already, and bounded by other means. */
  def take(n: Long): Unit = used.addAndGet(n)

  /** Gives `n` bytes back. */
  def give(n: Long): Unit = used.addAndGet(-n)

  /** The bytes held now. */
  def held: Long = used.get

object BodyBudget:
  /** A budget nothing passes: for an interpreter no server gave its own. */
  val Unbounded: BodyBudget = BodyBudget(Long.MaxValue)

  /**
   * The budget a server has unless its options give one: a quarter of the heap, and at least `maxBodySize`, so that the
   * largest body accepted is not always refused.
   */
  def default(maxBodySize: Long): Long = math.max(Runtime.getRuntime.maxMemory / 4, maxBodySize)
