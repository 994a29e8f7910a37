package rapier.server.spi

import java.util.concurrent.atomic.AtomicReference

/**
 * A value set once, from any thread, that an effect's fibers may wait for: the first `fire` sets it, later ones are
 * ignored. For what a connection's loop, a timer or a server's stop tells the fibers of a WebSocket; each effect module
 * waits on it through [[register]] (cats-effect's `async`, ZIO's `async`).
 */
final class OnceSignal[A]:
  // The callbacks waiting, or the value once fired (boxed, so that no value can pass for the list)
  private val state = AtomicReference[AnyRef](Nil)

  /** Sets the value and calls the callbacks waiting; false, and nothing done, if it was already set. */
  def fire(value: A): Boolean =
    val fired = OnceSignal.Fired(value)
    @annotation.tailrec
    def set(): Boolean = state.get match
      case waiting: List[?] =>
        if state.compareAndSet(waiting, fired) then
          waiting.foreach(_.asInstanceOf[A => Unit](value))
          true
        else set()
      case _ => false
    set()

  /** The value, or null while it is not set. */
  def value: A | Null = state.get match
    case OnceSignal.Fired(v) => v.asInstanceOf[A]
    case _ => null

  /** Calls `cb` with the value once it is set: at once if it is. A waiter interrupted meanwhile ignores the call. */
  def register(cb: A => Unit): Unit =
    @annotation.tailrec
    def add(): Unit = state.get match
      case waiting: List[?] => if !state.compareAndSet(waiting, cb :: waiting) then add()
      case OnceSignal.Fired(v) => cb(v.asInstanceOf[A])
    add()

object OnceSignal:
  private final case class Fired(value: Any)
