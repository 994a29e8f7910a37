package rapier.perf.ziohttp

import rapier.perf.common.{Customer, Order, OrderLine, PerfApi, ServerConfig}
import zio.*
import zio.http.*
import zio.http.endpoint.Endpoint
import zio.schema.{DeriveSchema, Schema}

/**
 * The suite's endpoints described with zio-http's typed `Endpoint` API and implemented, as its documentation shows:
 * the peer many Scala users would pick instead of Tapir. Text in and out as `text/plain`, bytes as
 * `application/octet-stream`, and JSON through zio-schema, the only codec the Endpoint API derives (the other servers
 * of the suite use jsoniter-scala). Compared with [[ZioHttpVanillaServer]], the same routes written by hand.
 */
final class ZioHttpEndpointServer extends ZioHttpPerfServer:
  protected def routes(config: ServerConfig): Routes[Any, Response] =
    Routes.fromIterable((0 until config.routes).flatMap(ZioHttpEndpointServer.routes))

object ZioHttpEndpointServer:
  private given Schema[Customer] = DeriveSchema.gen[Customer]
  private given Schema[OrderLine] = DeriveSchema.gen[OrderLine]
  private given Schema[Order] = DeriveSchema.gen[Order]

  def routes(n: Int): List[Route[Any, Response]] = List(
    Endpoint(Method.GET / s"path$n" / int("id"))
      .out[String](MediaType.text.plain)
      .implement(id => ZIO.succeed(PerfApi.ok(id))),
    Endpoint(Method.POST / s"path$n")
      .in[String](MediaType.text.plain)
      .out[String](MediaType.text.plain)
      .implement(text => ZIO.succeed(PerfApi.ok(text.length))),
    Endpoint(Method.POST / s"pathBytes$n")
      .in[Chunk[Byte]](MediaType.application.`octet-stream`)
      .out[String](MediaType.text.plain)
      .implement(bytes => ZIO.succeed(PerfApi.ok(bytes.length))),
    Endpoint(Method.POST / s"pathJson$n")
      .in[Order]
      .out[Order]
      .implement(order => ZIO.succeed(order))
  )
