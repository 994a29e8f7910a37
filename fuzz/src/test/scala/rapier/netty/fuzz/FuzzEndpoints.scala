package rapier.netty.fuzz

import rapier.*
import rapier.json.jsoniter.jsonBody
import rapier.server.*
import rapier.testkit.MultipartTests.Upload
import rapier.testkit.NegotiationTests.{Greeting, Signup, given}
import rapier.testkit.TestModel.{*, given}

import java.util.UUID
import scala.concurrent.Future

/**
 * Endpoints with an input of every kind, for the fuzz tests: path parameters of several types, `paths`, queries,
 * headers and cookies (required, optional, repeated), JSON with validation, forms, multipart, text and bytes,
 * credentials, and bodies negotiated by Content-Type. Their logic never fails, so any 5xx is Rapier's.
 */
object FuzzEndpoints:
  private def answer[I](e: Endpoint[Unit, I, Unit, String]): ServerEndpoint[Future] =
    e.serverLogicSuccess[Future](i => Future.successful(String.valueOf(i)))

  private val orders =
    given Schema[Order] = validatedOrder
    endpoint.post.in("orders").in(jsonBody[Order]).out(jsonBody[Order]).serverLogicSuccess[Future](Future.successful)

  val all: List[ServerEndpoint[Future]] = List(
    answer(
      endpoint.get.in("items" / path[Long]("id")).in(query[Option[Int]]("limit")).in(query[List[String]]("tag"))
        .in(query[Option[Boolean]]("flag")).out(stringBody)
    ),
    answer(
      endpoint.get.in("users" / path[UUID]("id")).in(header[Option[Int]]("X-Count"))
        .in(header[List[String]]("X-Many")).in(cookie[Option[String]]("session")).out(stringBody)
    ),
    answer(endpoint.get.in("files" / paths).out(stringBody)),
    answer(endpoint.get.in("keys" / path[String]("key").allowEncodedSlash).out(stringBody)),
    answer(
      endpoint.get.in("range" / path[Int]("n").validate(Validator.inRange(1, 10))).in(queryParams).out(stringBody)
    ),
    answer(endpoint.post.in("text").in(stringBody).out(stringBody)),
    answer(endpoint.post.in("bytes").in(byteArrayBody).out(stringBody)),
    answer(endpoint.post.in("form").in(formBody[Signup]).out(stringBody)),
    answer(endpoint.post.in("greet").in(oneOfBody(jsonBody[Greeting], plainBody[Greeting])).out(stringBody)),
    orders,
    endpoint.post.in("upload").in(multipartBody[Upload]).out(stringBody)
      .serverLogicSuccess[Future](u => Future.successful(u.title)),
    endpoint.post.in("parts").in(multipartBody[Multipart]).out(stringBody)
      .serverLogicSuccess[Future](m => Future.successful(m.parts.size.toString)),
    endpoint.securityIn(auth.bearer).get.in("secure").out(stringBody)
      .serverSecurityLogic[String, Future](token => Future.successful(Right(token)))
      .serverLogicSuccess((token, _) => Future.successful(token)),
    endpoint.securityIn(auth.basic).get.in("basic").out(stringBody)
      .serverSecurityLogic[String, Future](c => Future.successful(Right(c.toString)))
      .serverLogicSuccess((c, _) => Future.successful(c))
  )

  /** Paths and header names that reach the endpoints above, for the fuzzer to pick from. */
  val targets: Array[String] =
    Array(
      "/items/",
      "/users/",
      "/files/",
      "/keys/",
      "/range/",
      "/text",
      "/bytes",
      "/form",
      "/greet",
      "/orders",
      "/upload",
      "/parts",
      "/secure",
      "/basic",
      "/"
    )
  val headerNames: Array[String] =
    Array("Content-Type", "Accept", "Authorization", "Cookie", "X-Count", "X-Many", "Content-Length", "Host")
  val contentTypes: Array[String] = Array(
    "application/json",
    "text/plain; charset=UTF-8",
    "text/plain; charset=ISO-8859-1",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=rapier-boundary-42",
    "multipart/form-data",
    "application/octet-stream"
  )
