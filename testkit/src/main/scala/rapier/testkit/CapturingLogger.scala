package rapier.testkit

import org.slf4j.Marker
import org.slf4j.event.Level
import org.slf4j.helpers.{LegacyAbstractLogger, MessageFormatter}

import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters.*

/**
 * An slf4j logger that keeps what it is asked to write, for tests of logging; `enabled` sets the levels it claims
 * to write. `asked` counts how often it was asked whether a level is on.
 */
final class CapturingLogger(enabled: Set[Level] = Level.values.toSet) extends LegacyAbstractLogger:
  private val lines = ConcurrentLinkedQueue[(Level, String)]()
  private val checks = java.util.concurrent.atomic.AtomicInteger()

  def written: List[(Level, String)] = lines.asScala.toList
  def asked: Int = checks.get

  private def on(level: Level): Boolean =
    checks.incrementAndGet()
    enabled.contains(level)

  override def getName: String = "capturing"
  override def isTraceEnabled: Boolean = on(Level.TRACE)
  override def isDebugEnabled: Boolean = on(Level.DEBUG)
  override def isInfoEnabled: Boolean = on(Level.INFO)
  override def isWarnEnabled: Boolean = on(Level.WARN)
  override def isErrorEnabled: Boolean = on(Level.ERROR)
  override protected def getFullyQualifiedCallerName: String = null

  override protected def handleNormalizedLoggingCall(
      level: Level,
      marker: Marker,
      message: String,
      arguments: Array[Object],
      throwable: Throwable
  ): Unit = lines.add(level -> MessageFormatter.basicArrayFormat(message, arguments))
