package rapier.pekko

import com.typesafe.config.{Config, ConfigFactory}
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import rapier.server.{BackendOptions, BackendOptionsOf}

import scala.concurrent.duration.*

/**
 * How a [[PekkoServer]] listens and what it accepts: the options every backend shares (host, port, limits, timeouts,
 * the interpreter's options; read and set through [[rapier.server.BackendOptionsOf]]'s `withPort`, `withMaxBodySize`, …). The body
 * limits and the body read timeout are Rapier's, held in the route; the others are handed to pekko-http as its own
 * server settings ([[serverSettings]]). Immutable: each `withX` returns a copy.
 *
 * @param backend
 *   the options every backend shares
 * @param headerReadTimeout
 *   how long a [[PekkoServer]] waits for a request's head once its first bytes came (408 past it)
 */
final case class PekkoServerOptions(
    backend: BackendOptions = BackendOptions.default,
    headerReadTimeout: Duration = 10.seconds
) extends BackendOptionsOf[PekkoServerOptions]:
  def withBackend(b: BackendOptions): PekkoServerOptions = copy(backend = b)
  def withHeaderReadTimeout(d: Duration): PekkoServerOptions = copy(headerReadTimeout = d)

  /**
   * pekko-http's server settings for these options, over `config` (the actor system's): the idle timeout and the
   * connection limit as they are; no request timeout (the logic may take its time, a body has Rapier's deadline); no
   * body limit of pekko's (Rapier's are per endpoint kind); the request line's limit on the target and the header
   * section's on each header (Rapier checks the section's total itself); the peer's address kept for the logic, the
   * target as it came for routing (`Raw-Request-URI`); the bound host as the authority of an HTTP/1.0 request without
   * Host, which pekko-http otherwise refuses.
   */
  def serverSettings(config: Config): ServerSettings =
    ServerSettings(PekkoServerOptions.settingsConfig(this).withFallback(config))

object PekkoServerOptions:
  val default: PekkoServerOptions = PekkoServerOptions()

  private def settingsConfig(o: PekkoServerOptions): Config =
    def duration(d: Duration): String = if d.isFinite then s"${d.toMillis} ms" else "infinite"
    ConfigFactory.parseString(
      s"""pekko.http.server {
         |  idle-timeout = ${duration(o.idleTimeout)}
         |  request-timeout = infinite
         |  max-connections = ${o.maxConnections}
         |  remote-address-attribute = on
         |  raw-request-uri-header = on
         |  default-host-header = "${o.host}"
         |  parsing {
         |    # the framing guard passes obs-text on as UTF-8: a value may take twice its bytes
         |    max-content-length = infinite
         |    max-uri-length = ${o.maxInitialLineLength}
         |    max-header-name-length = ${o.maxHeaderSize}
         |    max-header-value-length = ${2 * o.maxHeaderSize}
         |    max-header-count = ${math.max(64, o.maxHeaderSize / 4)}
         |  }
         |}""".stripMargin
    )
