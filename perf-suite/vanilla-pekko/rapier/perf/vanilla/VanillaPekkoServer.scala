package rapier.perf.vanilla

import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.{ConnectionContext, Http}
import org.apache.pekko.http.scaladsl.model.{ContentTypes, HttpEntity, StatusCodes}
import org.apache.pekko.http.scaladsl.server.Directives.*
import org.apache.pekko.http.scaladsl.model.ws.{Message, TextMessage}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.marshalling.sse.EventStreamMarshalling.*
import org.apache.pekko.http.scaladsl.model.sse.ServerSentEvent
import org.apache.pekko.stream.QueueOfferResult
import org.apache.pekko.stream.scaladsl.{Flow, Source}
import rapier.perf.common.{PerfApi, PerfServer, ServerConfig, Ticks, TlsFiles}

import scala.concurrent.{Await, Promise}
import scala.concurrent.duration.*

/**
 * The suite's endpoints written directly on pekko-http with its routing DSL, as a pekko-http user would, bound with
 * `newServerAt` and pekko-http's default settings: each route number's six routes concatenated, and for 128 of them
 * (the Multi variant) the 128 concatenated with `~`, which pekko-http tries one after another, as the seeds' vanilla
 * pekko-http server did. Bodies read with `entity(as[String])` and `entity(as[Array[Byte]])` (within the suite's
 * limit, `withSizeLimit`), a streamed one folded over its `dataBytes`, the file sent with `getFromFile`; the WebSocket
 * study's two endpoints and the events of the SSE study beside them.
 */
final class VanillaPekkoServer extends PerfServer:
  private var system: ActorSystem | Null = null
  private var binding: Http.ServerBinding | Null = null
  private var sets = 0

  def start(config: ServerConfig): Int =
    sets = config.routes
    // pekko-http's HTTP/2, as its documentation turns it on: one setting, h2 by ALPN on an HTTPS binding
    val settings =
      if config.http2 then ConfigFactory.parseString("pekko.http.server.enable-http2 = on") else ConfigFactory.empty
    given s: ActorSystem = ActorSystem("vanilla-pekko", settings.withFallback(ConfigFactory.load()))
    system = s
    val routes = (0 until config.routes).map(VanillaPekkoServer.route).reduce(_ ~ _) ~ VanillaPekkoServer.webSockets ~
      VanillaPekkoServer.events ~ pathPrefix("static")(getFromDirectory(PerfApi.staticDirectory.toString))
    // pekko-http's own compression, its encodeResponse directive: gzip or deflate as Accept-Encoding asks
    val route = if config.compression then encodeResponse(routes) else routes
    val at = Http().newServerAt("0.0.0.0", config.port)
    // pekko-http's TLS, set as Rapier's pekko server sets it: a JDK engine, TLS 1.3 and 1.2, ALPN offering HTTP/1.1
    // (and h2 before it with HTTP/2 on)
    val secured = config.tls.fold(at) { files =>
      val context = files.sslContext()
      at.enableHttps(ConnectionContext.httpsServer { () =>
        val engine = context.createSSLEngine()
        engine.setUseClientMode(false)
        val parameters = engine.getSSLParameters
        parameters.setProtocols(TlsFiles.Protocols.toArray)
        parameters.setApplicationProtocols(if config.http2 then Array("h2", "http/1.1") else Array("http/1.1"))
        engine.setSSLParameters(parameters)
        engine
      })
    }
    val bound = Await.result(secured.bind(route), 30.seconds)
    binding = bound
    bound.localAddress.getPort

  /** Each route number's routes are one `Route`, tried in turn: how pekko-http routes concatenated routes. */
  def routeSets: Int = sets

  def stop(): Unit =
    if binding != null then Await.ready(binding.nn.terminate(5.seconds), 10.seconds)
    if system != null then Await.ready(system.nn.terminate(), 10.seconds)

object VanillaPekkoServer:
  /**
   * The WebSocket study's `/ws/echo` and `/ws/ts` with pekko-http's own API, `handleWebSocketMessages` and a `Flow` of
   * messages: each text message written back, or answered on the next tick of [[Ticks]] with the time then.
   */
  val webSockets: Route =
    concat(
      path("ws" / "echo")(handleWebSocketMessages(Flow[Message].collect { case m: TextMessage.Strict => m })),
      path("ws" / "ts") {
        handleWebSocketMessages(Flow[Message].mapAsync(16) { _ =>
          val answer = Promise[Message]()
          Ticks.onNext(stamp => answer.success(TextMessage.Strict(stamp)))
          answer.future
        })
      }
    )

  /**
   * `/sse/ts` with pekko-http's own server-sent events: a `Source` of `ServerSentEvent`s, marshalled by its
   * `EventStreamMarshalling`, fed from a queue at every tick of [[Ticks]] with the time then.
   */
  val events: Route =
    path("sse" / "ts") {
      get {
        complete {
          Source.queue[ServerSentEvent](16).mapMaterializedValue { queue =>
            Ticks.add(new Runnable:
              def run(): Unit =
                if queue.offer(ServerSentEvent(Ticks.stamp())) == QueueOfferResult.QueueClosed then Ticks.remove(this))
          }
        }
      }
    }

  def route(n: Int): Route =
    concat(
      path(s"path$n" / IntNumber)(id => get(complete(PerfApi.ok(id)))),
      path(s"path$n") {
        post(withSizeLimit(PerfApi.MaxBodySize)(entity(as[String])(s => complete(PerfApi.ok(s.length)))))
      },
      path(s"pathBytes$n") {
        post(withSizeLimit(PerfApi.MaxBodySize)(entity(as[Array[Byte]])(b => complete(PerfApi.ok(b.length)))))
      },
      path(s"pathJson$n") {
        get(complete(HttpEntity(ContentTypes.`application/json`, PayloadCodecs.order())))
      },
      path(s"pathJson$n") {
        post(withSizeLimit(PerfApi.MaxBodySize)(entity(as[Array[Byte]]) { b =>
          PayloadCodecs.echo(b, b.length) match
            case Some(out) => complete(HttpEntity(ContentTypes.`application/json`, out))
            case None => complete(StatusCodes.BadRequest, "bad json")
        }))
      },
      path(s"pathStream$n") {
        post {
          extractRequestEntity { body =>
            extractMaterializer { mat =>
              onSuccess(body.withoutSizeLimit.dataBytes.runFold(0L)(_ + _.length)(using mat)) { count =>
                complete(PerfApi.ok(count))
              }
            }
          }
        }
      },
      path(s"pathFile$n")(get(getFromFile(PerfApi.file.toFile)))
    )
