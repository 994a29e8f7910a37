package rapier.vertx

import rapier.server.ServerEndpoint
import rapier.testkit.*

import scala.concurrent.Future

/** The shared server test kit, on Vert.x. */
class VertxServerTests extends ServerTests, WebSocketTests:
  def server: TestServer = VertxTestServer

  override def unsupported: Map[String, String] = VertxServerTests.unsupported
  override def unsupportedMalformedRequests: Map[String, String] = VertxServerTests.unsupportedMalformedRequests

/** What Vert.x can't do that the kit tests, and why: shared by every way Rapier runs on Vert.x. */
object VertxServerTests:
  private val headersFirst =
    "Vert.x hands a request over once its headers are parsed, and has no deadline for reading them"

  val unsupported: Map[String, String] = Map(
    "a client trickling its headers is answered 408 at the header deadline, and closed" -> headersFirst,
    "a client sending only empty lines is closed at the header deadline" -> headersFirst,
    "while 500 slowloris connections trickle their headers, requests are served, and the deadline closes them all" ->
      headersFirst,
    "a request in progress is not cut by the idle timeout" ->
      "Vert.x's idle timeout closes a connection without traffic, also while its request is being served"
  )

  private val normalized = "Vert.x's parser reads it leniently and hands over a request that shows no trace of it"
  private val versions = "Vert.x answers a request line with a version other than HTTP/1.x by itself, with 501"

  val unsupportedMalformedRequests: Map[String, String] = Map(
    "request line: two spaces after the method" -> normalized,
    "request line: a tab as separator" -> normalized,
    "request line: leading whitespace" -> normalized,
    "header: an empty name" -> "Vert.x's parser doesn't validate header names, and the empty name is dropped",
    "request line: a lower-case protocol name" -> versions,
    "request line: a version of two digits" -> versions,
    "request line: another protocol" -> versions,
    "request line: HTTP/1.2" -> versions,
    "request line: HTTP/2.0" -> versions,
    "request line: HTTP/0.9" -> versions
  )

object VertxTestServer extends TestServer:
  def name = "vertx"

  def start(endpoints: List[ServerEndpoint[Future]], config: TestServerConfig): RunningServer =
    RunningServer(VertxServer(endpoints, options(config)).start())

  def options(config: TestServerConfig): VertxServerOptions = VertxServerOptions(config.backend)
