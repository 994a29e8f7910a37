package rapier.perf.ziohttp

import rapier.perf.common.{PerfApi, ServerConfig}
import rapier.perf.vanilla.PayloadCodecs
import zio.*
import zio.http.*

/**
 * The suite's endpoints written by hand on zio-http, as its documentation writes routes: `Routes` of
 * `Method / path -> handler`, reading bodies with `request.body`, JSON through jsoniter-scala as on every vanilla
 * server. The vanilla twin of [[ZioHttpEndpointServer]].
 */
final class ZioHttpVanillaServer extends ZioHttpPerfServer:
  protected def routes(config: ServerConfig): Routes[Any, Response] =
    Routes.fromIterable((0 until config.routes).flatMap(ZioHttpVanillaServer.routes))

object ZioHttpVanillaServer:
  private val json = Headers(Header.ContentType(MediaType.application.json))

  def routes(n: Int): List[Route[Any, Response]] = List(
    Method.GET / s"path$n" / int("id") -> handler((id: Int, _: Request) => Response.text(PerfApi.ok(id))),
    Method.POST / s"path$n" -> handler((request: Request) =>
      request.body.asString.map(text => Response.text(PerfApi.ok(text.length))).orDie
    ),
    Method.POST / s"pathBytes$n" -> handler((request: Request) =>
      request.body.asArray.map(bytes => Response.text(PerfApi.ok(bytes.length))).orDie
    ),
    Method.POST / s"pathJson$n" -> handler((request: Request) =>
      request.body.asArray.map { bytes =>
        PayloadCodecs.echo(bytes, bytes.length) match
          case Some(answer) => Response(Status.Ok, json, Body.fromArray(answer))
          case None => Response.text("bad json").status(Status.BadRequest)
      }.orDie
    )
  )
