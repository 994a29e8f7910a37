package rapier.flow

import java.util.concurrent.atomic.AtomicLong

/** A `Flow.Subscription`'s outstanding demand: what its subscriber requested and has not been sent yet. */
private[rapier] object Demand:
  /** Adds `n` (positive) to `demand`, capped at `Long.MaxValue`, which means unbounded (Reactive Streams §3.17). */
  def add(demand: AtomicLong, n: Long): Unit =
    var current = demand.get
    while !demand.compareAndSet(current, if current + n < 0 then Long.MaxValue else current + n) do
      current = demand.get

  /** Counts one element sent, unless the demand is unbounded. */
  def take(demand: AtomicLong): Unit = if demand.get != Long.MaxValue then demand.decrementAndGet()
