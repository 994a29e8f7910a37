package rapier.http4s.internal

import cats.Id
import org.typelevel.log4cats.Logger

import scala.collection.mutable.ListBuffer

class EmberLogTest extends munit.FunSuite:
  /** What reached Ember's logger: level, message, and whether a throwable (its stack trace) came with it. */
  private final class Recorded extends Logger[Id]:
    val lines = ListBuffer.empty[(String, String, Boolean)]
    private def add(level: String, message: String, t: Boolean): Unit = lines += ((level, message, t))
    def error(message: => String): Unit = add("ERROR", message, false)
    def warn(message: => String): Unit = add("WARN", message, false)
    def info(message: => String): Unit = add("INFO", message, false)
    def debug(message: => String): Unit = add("DEBUG", message, false)
    def trace(message: => String): Unit = add("TRACE", message, false)
    def error(t: Throwable)(message: => String): Unit = add("ERROR", message, true)
    def warn(t: Throwable)(message: => String): Unit = add("WARN", message, true)
    def info(t: Throwable)(message: => String): Unit = add("INFO", message, true)
    def debug(t: Throwable)(message: => String): Unit = add("DEBUG", message, true)
    def trace(t: Throwable)(message: => String): Unit = add("TRACE", message, true)

  test("a client's failed handshake and reset WebSocket are one DEBUG line each, without a stack trace"):
    val ember = Recorded()
    val log = EmberLog[Id](ember)
    log.warn(javax.net.ssl.SSLHandshakeException("no cipher suites in common"))(EmberLog.HandshakeFailed)
    log.error(java.io.IOException("Connection reset by peer"))(EmberLog.WebSocketEnded)
    assertEquals(
      ember.lines.toList,
      List(
        (
          "DEBUG",
          s"${EmberLog.HandshakeFailed}: javax.net.ssl.SSLHandshakeException: no cipher suites in common",
          false
        ),
        ("DEBUG", s"${EmberLog.WebSocketEnded}: java.io.IOException: Connection reset by peer", false)
      )
    )

  test("everything else reaches Ember's log as it was written"):
    val ember = Recorded()
    val log = EmberLog[Id](ember)
    val failure = IllegalStateException("a bug")
    log.error(failure)(EmberLog.WebSocketEnded)
    log.warn(failure)("Something else")
    log.error("plain")
    log.info(failure)("noted")
    assertEquals(
      ember.lines.toList,
      List(
        ("ERROR", EmberLog.WebSocketEnded, true),
        ("WARN", "Something else", true),
        ("ERROR", "plain", false),
        ("INFO", "noted", true)
      )
    )
