package rapier.server.internal

import scala.concurrent.duration.Duration
import scala.concurrent.{CanAwait, ExecutionContext, Future}
import scala.util.{Success, Try}

/**
 * A future complete from birth with a value: what the `Future` monad returns for work that did not wait on
 * anything. One object, where `Future.successful` makes a promise and a `Success`; and a backend that knows the
 * class reads the value without the `Some(Success(...))` that `Future.value` allocates. To everyone else it is an
 * ordinary completed future.
 */
private[rapier] final class Done[+A](val get: A) extends Future[A]:
  private def promise: Future[A] = Future.successful(get)

  def onComplete[U](f: Try[A] => U)(using executor: ExecutionContext): Unit = promise.onComplete(f)
  def isCompleted: Boolean = true
  def value: Option[Try[A]] = Some(Success(get))
  def transform[S](f: Try[A] => Try[S])(using executor: ExecutionContext): Future[S] = promise.transform(f)
  def transformWith[S](f: Try[A] => Future[S])(using executor: ExecutionContext): Future[S] = promise.transformWith(f)
  def ready(atMost: Duration)(using permit: CanAwait): this.type = this
  def result(atMost: Duration)(using permit: CanAwait): A = get
  override def toString: String = s"Future(Success($get))"
