package rapier.http4s.internal

import org.typelevel.log4cats.Logger

/**
 * Ember's log, less what a client alone causes: a handshake it failed, a WebSocket or an HTTP/2 stream it reset are
 * written at DEBUG,
 * one line without the stack trace, where Ember writes each at WARN or ERROR with its trace; a client could otherwise
 * fill the log with a stack trace per connection. Everything else goes to `ember` as it is.
 */
private[http4s] final class EmberLog[F[_]](ember: Logger[F]) extends Logger[F]:
  import EmberLog.*

  def error(message: => String): F[Unit] = ember.error(message)
  def warn(message: => String): F[Unit] = ember.warn(message)
  def info(message: => String): F[Unit] = ember.info(message)
  def debug(message: => String): F[Unit] = ember.debug(message)
  def trace(message: => String): F[Unit] = ember.trace(message)

  def error(t: Throwable)(message: => String): F[Unit] =
    val m = message
    if m.startsWith(WebSocketEnded) && t.isInstanceOf[java.io.IOException] then ember.debug(s"$m: $t")
    else if m.startsWith(StreamFailed) && (t.isInstanceOf[java.io.IOException] || t.getMessage == StreamClosed) then
      ember.debug(s"$m: $t")
    else ember.error(t)(m)

  def warn(t: Throwable)(message: => String): F[Unit] =
    val m = message
    if m.startsWith(HandshakeFailed) then ember.debug(s"$m: $t") else ember.warn(t)(m)

  def info(t: Throwable)(message: => String): F[Unit] = ember.info(t)(message)
  def debug(t: Throwable)(message: => String): F[Unit] = ember.debug(t)(message)
  def trace(t: Throwable)(message: => String): F[Unit] = ember.trace(t)(message)

private[http4s] object EmberLog:
  /** The logger Ember writes to by default, kept so that a logging configuration naming it still applies. */
  val EmberLoggerName = "org.http4s.ember.server.EmberServerBuilderCompanionPlatform"

  /** What Ember writes when a client's TLS handshake fails (http4s 0.23's ember-server). */
  val HandshakeFailed = "Failed to upgrade socket to TLS"

  /**
   * What Ember writes when an HTTP/2 stream's response can't be sent, and why, when its client reset it or Rapier
   * refused it (http4s 0.23's ember-core).
   */
  val StreamFailed = "Error while processing stream"
  val StreamClosed = "Stream Was Closed"

  /** What Ember writes when a WebSocket's connection ends with an exception. */
  val WebSocketEnded = "WebSocket connection terminated with exception"
