package rapier.flow

import java.util.concurrent.Flow
import java.util.concurrent.atomic.AtomicLong

/** A `Flow.Subscription`'s outstanding demand: what its subscriber requested and has not been sent yet. */
private[rapier] object Demand:
  /** Adds `n` (positive) to `demand`, capped at `Long.MaxValue`, which means unbounded (Reactive Streams §3.17). */
  def add(demand: AtomicLong, n: Long): Unit =
    var current = demand.get
    while !demand.compareAndSet(current, plus(current, n)) do current = demand.get

  /** Why a request of `n`, not positive, is an error the subscriber is told of (Reactive Streams §3.9). */
  def nonPositive(n: Long, what: String): String =
    s"a subscriber must request a positive number of $what, not $n (Reactive Streams §3.9)"

  /** `current + n` (`n` positive), capped at `Long.MaxValue`: for demand kept by one thread. */
  def plus(current: Long, n: Long): Long = if current + n < 0 then Long.MaxValue else current + n

  /**
   * Turns away a subscriber a publisher can't serve: a subscription that does nothing, then the error (Reactive
   * Streams §1.9: `onSubscribe` comes first).
   */
  def refuse(subscriber: Flow.Subscriber[?], why: String): Unit =
    subscriber.onSubscribe(Refused)
    subscriber.onError(IllegalStateException(why))

  private object Refused extends Flow.Subscription:
    def request(n: Long): Unit = ()
    def cancel(): Unit = ()

  /** Counts one element sent, unless the demand is unbounded. */
  def take(demand: AtomicLong): Unit = if demand.get != Long.MaxValue then demand.decrementAndGet()
