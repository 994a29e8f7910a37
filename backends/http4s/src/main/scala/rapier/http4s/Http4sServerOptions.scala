package rapier.http4s

import rapier.server.{BackendOptions, BackendOptionsOf}

import scala.concurrent.duration.*

/**
 * Options of Rapier on http4s: the shared [[rapier.server.BackendOptions]] (the limits Rapier holds — body sizes — and those it hands
 * to Ember for the standalone server: host, port, header size, idle and shutdown timeouts, connections), and beside
 * them:
 *
 * @param headerReadTimeout
 *   how long Ember waits for a request's head once a connection has one to send (Ember's
 *   `requestHeaderReceiveTimeout`)
 */
final case class Http4sServerOptions(
    backend: BackendOptions = BackendOptions.default,
    headerReadTimeout: Duration = 10.seconds
) extends BackendOptionsOf[Http4sServerOptions]:
  def withBackend(b: BackendOptions): Http4sServerOptions = copy(backend = b)
  def withHeaderReadTimeout(d: Duration): Http4sServerOptions = copy(headerReadTimeout = d)

object Http4sServerOptions:
  val default: Http4sServerOptions = Http4sServerOptions()
