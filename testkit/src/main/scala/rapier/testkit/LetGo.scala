package rapier.testkit

import java.lang.ref.WeakReference
import java.util.concurrent.ConcurrentLinkedQueue

/**
 * Weak references to what a server handed a test's logic (a request, its body, a stream), to check that the server
 * lets them go: once a collection clears them all, nothing of the server's (a timer, a table) still holds them.
 */
final class LetGo:
  private val refs = ConcurrentLinkedQueue[WeakReference[AnyRef]]()

  /** Watches `value`, from any thread. */
  def watch(value: AnyRef | Null): Unit =
    val _ = refs.add(WeakReference(value))

  /** How many values are watched. */
  def count: Int = refs.size

  /** How many watched values are still reachable, after asking for a full collection. */
  def held(): Long =
    System.gc()
    refs.stream.filter(_.get != null).count
