package rapier.cats

import cats.effect.Async

import java.util.concurrent.atomic.AtomicReference

/**
 * A value set once, from any thread, that fibers may wait for: the first `fire` sets it, later ones are ignored. For
 * what a connection's loop, a timer or a server's stop tells the fibers of a WebSocket.
 */
private[rapier] final class OnceSignal[A]:
  // The callbacks waiting, or the value once fired (boxed, so that no value can pass for the list)
  private val state = AtomicReference[AnyRef](Nil)

  /** Sets the value and wakes the fibers waiting; false, and nothing done, if it was already set. */
  def fire(value: A): Boolean =
    val fired = OnceSignal.Fired(value)
    @annotation.tailrec
    def set(): Boolean = state.get match
      case waiting: List[?] =>
        if state.compareAndSet(waiting, fired) then
          waiting.foreach(_.asInstanceOf[Either[Throwable, A] => Unit](Right(value)))
          true
        else set()
      case _ => false
    set()

  /** The value, or null while it is not set. */
  def value: A | Null = state.get match
    case OnceSignal.Fired(v) => v.asInstanceOf[A]
    case _ => null

  /** Waits for the value; cancelable, the callback then ignored. */
  def await[F[_]](using F: Async[F]): F[A] = F.async { cb =>
    F.delay {
      @annotation.tailrec
      def add(): Unit = state.get match
        case waiting: List[?] => if !state.compareAndSet(waiting, cb :: waiting) then add()
        case OnceSignal.Fired(v) => cb(Right(v.asInstanceOf[A]))
      add()
      Some(F.unit)
    }
  }

private[rapier] object OnceSignal:
  private final case class Fired(value: Any)
