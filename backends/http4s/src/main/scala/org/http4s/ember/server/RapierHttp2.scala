package org.http4s.ember.server

import cats.data.Kleisli
import cats.effect.Async
import fs2.io.net.Socket
import fs2.io.net.tls.TLSSocket
import org.http4s.ember.core.h2.{H2Frame, H2Keys, H2Server}
import org.http4s.ember.server.internal.ServerHelpers
import org.http4s.server.ServerRequestKeys
import org.http4s.{HttpApp, Request}
import org.typelevel.log4cats.Logger
import org.typelevel.vault.Vault

import scala.concurrent.duration.Duration

/**
 * Ember's HTTP/2 connection, run by Rapier on a connection it has found speaking HTTP/2: with Rapier's settings where
 * Ember's server would advertise its own defaults, and each request carrying its connection (addresses, TLS session)
 * as Ember's HTTP/1.1 requests do. In Ember's package, as Ember keeps its HTTP/2 server to it.
 */
object RapierHttp2:
  /** What the server advertises in its SETTINGS, and holds a client to. */
  final case class Limits(maxConcurrentStreams: Int, initialWindowSize: Int, maxHeaderListSize: Int)

  /**
   * Serves HTTP/2 on `socket`, whose preface has been read, until the connection ends. `connection` is the socket it
   * came on (TLS, for the session's certificates), `socket` what Rapier reads it through.
   */
  def serve[F[_]](
      socket: Socket[F],
      connection: Socket[F],
      app: HttpApp[F],
      limits: Limits,
      headerTimeout: Duration,
      idleTimeout: Duration,
      logger: Logger[F]
  )(using F: Async[F]): F[Unit] =
    val defaults = H2Frame.Settings.ConnectionSettings.default
    val settings = defaults.copy(
      enablePush = H2Frame.Settings.SettingsEnablePush(false),
      // Rapier's watch refuses streams past the limit itself, and hands their HEADERS to Ember for HPACK's sake with a
      // cancel after them: Ember held to the limit would refuse them again, and call the cancel a protocol error. It
      // gets room for them; the watch writes the limit into the SETTINGS the client reads.
      maxConcurrentStreams = H2Frame.Settings.SettingsMaxConcurrentStreams(emberStreams(limits.maxConcurrentStreams)),
      initialWindowSize = H2Frame.Settings.SettingsInitialWindowSize(limits.initialWindowSize),
      maxHeaderListSize = Some(H2Frame.Settings.SettingsMaxHeaderListSize(limits.maxHeaderListSize))
    )
    F.flatMap(attributes(connection)) { vault =>
      val attributed = Kleisli((request: Request[F]) => app.run(request.withAttributes(request.attributes ++ vault)))
      F.void(H2Server.fromSocket(socket, attributed, headerTimeout, idleTimeout, settings, logger).use(_ => F.unit))
    }

  /** The streams Ember itself allows at once: the limit, and room for the streams the watch refuses. */
  def emberStreams(limit: Int): Int = math.min(Int.MaxValue.toLong, limit.toLong + 16_384).toInt

  /** The HTTP/2 stream a request came on, as Ember's HTTP/2 layer names it. */
  def streamOf[F[_]](request: Request[F]): Option[Int] = request.attributes.lookup(H2Keys.StreamIdentifier)

  // The connection's addresses and, over TLS, its session: what Ember gives its HTTP/1.1 requests.
  private def attributes[F[_]](connection: Socket[F])(using F: Async[F]): F[Vault] =
    val info = Request.Connection(
      connection.address.asIpUnsafe,
      connection.peerAddress.asIpUnsafe,
      connection.isInstanceOf[TLSSocket[?]]
    )
    val base = Vault.empty.insert(Request.Keys.ConnectionInfo, info)
    connection match
      case tls: TLSSocket[F] @unchecked =>
        F.map(tls.session)(session =>
          base.insert(ServerRequestKeys.SecureSession, ServerHelpers.parseSSLSession(session))
        )
      case _ => F.pure(base)
