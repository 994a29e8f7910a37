package rapier.server

import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.NonFatal
import scala.util.{Failure, Success}

/** Direct style: the effect of a computation that simply returns its value (or throws). */
type Identity[A] = A

/**
 * The little the interpreter needs from an effect `F`: sequencing and failure. Instances exist for `Future` and for
 * direct style ([[Identity]]); other effect systems come as modules.
 */
trait Monad[F[_]]:
  def unit[A](a: A): F[A]
  def map[A, B](fa: F[A])(f: A => B): F[B]
  def flatMap[A, B](fa: F[A])(f: A => F[B]): F[B]
  def error[A](e: Throwable): F[A]

  /** Recovers from a failure carried inside `fa`. Exceptions thrown while computing `fa` are the caller's to catch. */
  def handleError[A](fa: F[A])(h: Throwable => F[A]): F[A]

  /**
   * Recovers from a failure of `fa`, whether it carries it or throws it while being computed: direct style knows only
   * the second kind, and logic in any effect may throw rather than fail. `fa` is passed by name, which costs an
   * object: for paths off the hot one.
   */
  final def recover[A](fa: => F[A])(h: Throwable => F[A]): F[A] =
    val computed =
      try fa
      catch case NonFatal(e) => return h(e)
    handleError(computed)(h)

  /**
   * A value a callback delivers later: how the interpreter waits for a body the backend reads on demand. `register`
   * is handed the callback, which is to be called once, on any thread.
   */
  def async[A](register: (Either[Throwable, A] => Unit) => Unit): F[A]

  /**
   * [[async]], with what `register` returns run if the effect is stopped while it waits (a fiber cancelled): how a
   * client's call abandons its exchange with its fiber. By default [[async]], for effects that can't be stopped.
   */
  def cancelableAsync[A](register: (Either[Throwable, A] => Unit) => (() => Unit)): F[A] =
    async(done => register(done): Unit)

  /**
   * `fa`, with `finalizer` run once it ends, whatever the end: a value, a failure, or — for an effect that can be
   * stopped (a fiber cancelled because its client went away) — cancellation. What the interpreter must undo on every
   * outcome, such as deleting the temporary files of an upload, goes here, and in `ServerRequest.whenCancelled` too:
   * a runner may stop an effect before it enters the region (cats-effect's). By default for effects that can't be
   * stopped (`Future`, direct style); effect modules override it with their own.
   */
  def guarantee[A](fa: F[A])(finalizer: () => Unit): F[A] =
    handleError(map(fa) { a =>
      finalizer()
      a
    }) { e =>
      finalizer()
      error(e)
    }

  /**
   * `fa`, computed with `c` current. By default `c` is current only while `fa` is computed, all an effect that runs
   * where it is computed needs (direct style; a `Future`'s start); effect modules override it to keep `c` current on
   * every thread the effect runs on.
   */
  def within[A](c: LogicContext)(fa: => F[A]): F[A] =
    val scope = c.attach()
    try fa
    finally scope.close()

object Monad:
  def apply[F[_]](using m: Monad[F]): Monad[F] = m

  given identity: Monad[Identity] with
    def unit[A](a: A): A = a
    def map[A, B](fa: A)(f: A => B): B = f(fa)
    def flatMap[A, B](fa: A)(f: A => B): B = f(fa)
    def error[A](e: Throwable): A = throw e
    def handleError[A](fa: A)(h: Throwable => A): A = fa

    /** Blocks the calling thread until the callback is called: direct style runs where blocking is fine. */
    def async[A](register: (Either[Throwable, A] => Unit) => Unit): A =
      val result = java.util.concurrent.CompletableFuture[Either[Throwable, A]]()
      register(result.complete(_))
      result.get() match
        case Right(a) => a
        case Left(e) => throw e

  /**
   * Continuations run on the thread that completes a future (`parasitic`): they are the interpreter's own short
   * steps, never user code that could block. A future that is already complete is continued at once, without
   * scheduling anything — the common case of logic that answers immediately — and what the interpreter produces
   * then is a [[internal.Done]], which a backend reads without allocating (through `spi.Completion`).
   */
  given future: Monad[Future] with
    private val sameThread = ExecutionContext.parasitic

    def unit[A](a: A): Future[A] = internal.Done(a)

    def map[A, B](fa: Future[A])(f: A => B): Future[B] =
      fa match
        case done: internal.Done[A] => attempt(internal.Done(f(done.get)))
        case _ if fa.isCompleted =>
          fa.value.get match
            case Success(a) => attempt(internal.Done(f(a)))
            case Failure(_) => fa.asInstanceOf[Future[B]]
        case _ => fa.map(f)(using sameThread)

    def flatMap[A, B](fa: Future[A])(f: A => Future[B]): Future[B] =
      fa match
        case done: internal.Done[A] => attempt(f(done.get))
        case _ if fa.isCompleted =>
          fa.value.get match
            case Success(a) => attempt(f(a))
            case Failure(_) => fa.asInstanceOf[Future[B]]
        case _ => fa.flatMap(f)(using sameThread)

    def error[A](e: Throwable): Future[A] = Future.failed(e)

    def handleError[A](fa: Future[A])(h: Throwable => Future[A]): Future[A] =
      fa match
        case _: internal.Done[A] => fa
        case _ if fa.isCompleted =>
          fa.value.get match
            case Success(_) => fa
            case Failure(e) => attempt(h(e))
        case _ => fa.recoverWith { case NonFatal(e) => h(e) }(using sameThread)

    def async[A](register: (Either[Throwable, A] => Unit) => Unit): Future[A] =
      val promise = Promise[A]()
      register {
        case Right(a) => promise.trySuccess(a)
        case Left(e) => promise.tryFailure(e)
      }
      promise.future

    private inline def attempt[B](inline fb: Future[B]): Future[B] =
      try fb
      catch case NonFatal(e) => Future.failed(e)
