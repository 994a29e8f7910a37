package rapier.server.internal

import scala.concurrent.duration.Duration

/** The checks every backend's options make of the limits they share, with the same messages. */
object BackendLimits:
  /**
   * @throws IllegalArgumentException
   *   naming the first limit out of range
   */
  def check(
      port: Int,
      maxBodySize: Long,
      maxInitialLineLength: Int,
      maxHeaderSize: Int,
      maxConnections: Int,
      timeouts: Duration*
  ): Unit =
    require(port >= 0 && port <= 65535, s"a port is between 0 and 65535, not $port")
    require(maxBodySize >= 0 && maxBodySize <= Int.MaxValue - 8, "maxBodySize must fit in a byte array")
    require(maxInitialLineLength > 0 && maxHeaderSize > 0, "line and header limits must be positive")
    require(maxConnections > 0, "maxConnections must be positive")
    require(timeouts.forall(_ > Duration.Zero), "timeouts must be positive (Duration.Inf for none)")
