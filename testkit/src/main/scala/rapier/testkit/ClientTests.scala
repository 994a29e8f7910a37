package rapier.testkit

import rapier.*
import rapier.client.*
import rapier.json.jsoniter.jsonBody
import rapier.model.*
import rapier.server.*
import rapier.testkit.TestModel.*

import java.io.InputStream
import java.net.http.HttpRequest.BodyPublishers
import java.nio.ByteBuffer
import java.nio.file.{Files, Path}
import java.util.concurrent.Flow
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future, Promise}

/**
 * The client interpreter against the server under test: each kind of input and output written by Rapier's client and
 * read by the server, then the other way, typed errors decoded as `Left`, and what the server refuses before the logic
 * (a problem) a failure that names it.
 */
trait ClientTests extends ServerTestSupport:
  import ClientTests.*

  private def call[T](f: Future[T]): T = Await.result(f, 30.seconds)

  extension (t: Target)
    private def base: String = s"${protocol.scheme}://localhost:${t.port}"
    private def options: ClientOptions = ClientOptions(http = protocol.client)

  test("client: path, query, header and cookie inputs arrive as the server reads them"):
    val e = endpoint.get
      .in("items" / path[String]("name") / "n" / path[Int]("n"))
      .in(query[Option[String]]("lang"))
      .in(query[List[Int]]("tag"))
      .in(header[String]("X-Who"))
      .in(cookie[Option[String]]("session"))
      .out(stringBody)
    val served = e.serverLogicSuccess[Future]((name, n, lang, tags, who, session) =>
      Future.successful(s"$name|$n|$lang|$tags|$who|$session")
    )
    withServer(served) { t =>
      val call1 = e.client[Future](t.base, t.options)
      assertEquals(
        call(call1(("a b ü?&#", 7, Some("fr & en"), List(1, 2), "Ada", Some("s1")))),
        Right("a b ü?&#|7|Some(fr & en)|List(1, 2)|Ada|Some(s1)")
      )
      assertEquals(call(call1(("x", -1, None, Nil, "", None))), Right("x|-1|None|List()||None"))
    }

  test("client: status codes, headers and cookies of the output are read back"):
    val e = endpoint.post
      .in("made")
      .out(statusCode(StatusCode.Created))
      .out(header[String]("X-One"))
      .out(header[List[Int]]("X-Many"))
      .out(setCookie("session"))
      .out(stringBody)
    val cookie = CookieValueWithMeta("abc", maxAge = Some(60), path = Some("/"), httpOnly = true)
    withServer(e.serverLogicSuccess[Future](_ => Future.successful(("1", List(2, 3), cookie, "done")))) { t =>
      assertEquals(call(e.client[Future](t.base, t.options)(())), Right(("1", List(2, 3), cookie, "done")))
    }
    val chosen = endpoint.get.in("s" / path[Int]("code")).out(statusCode)
    withServer(chosen.serverLogicSuccess[Future](c => Future.successful(StatusCode(c)))) { t =>
      val c = chosen.client[Future](t.base, t.options)
      assertEquals(call(c(202)), Right(StatusCode(202)))
      assertEquals(call(c(204)), Right(StatusCode(204)))
    }

  test("client: JSON bodies round-trip, and typed errors are Left, each variant by its status"):
    val e = endpoint.put
      .in("orders" / path[Long]("id"))
      .in(jsonBody[Order])
      .errorOut(
        oneOf[NotFound | Conflict](
          oneOfVariant(StatusCode.NotFound, jsonBody[NotFound]),
          oneOfVariant(StatusCode.Conflict, jsonBody[Conflict])
        )
      )
      .out(jsonBody[Order])
    val served = e.serverLogic[Future] { (id, o) =>
      Future.successful(
        if id == 404 then Left(NotFound(s"order $id"))
        else if id == 409 then Left(Conflict("shipped"))
        else Right(o.copy(id = id, note = Some("saved")))
      )
    }
    withServer(served) { t =>
      val c = e.client[Future](t.base, t.options)
      val o = order(Line("a-1", 2, BigDecimal("9.50")))
      assertEquals(call(c((12L, o))), Right(o.copy(id = 12, note = Some("saved"))))
      assertEquals(call(c((404L, o))), Left(NotFound("order 404")))
      assertEquals(call(c((409L, o))), Left(Conflict("shipped")))
    }

  test("client: what the server refuses before the logic is a ProblemAnswer naming each input that failed"):
    val e = endpoint.get
      .in("check")
      .in(query[Int]("n").validate(Validator.positive))
      .errorOut(stringBody)
      .out(stringBody)
    withServer(e.serverLogicSuccess[Future](n => Future.successful(n.toString))) { t =>
      val failure = intercept[ClientException.ProblemAnswer](call(e.client[Future](t.base, t.options)(-3)))
      assertEquals(failure.problem.status, StatusCode.BadRequest)
      assertEquals(failure.problem.errors.map(_.location), List("query.n"))
      assert(failure.getMessage.contains("query.n"), failure.getMessage)
      val missing = endpoint.get.in("nowhere").out(stringBody)
      val notFound = intercept[ClientException.ProblemAnswer](call(missing.client[Future](t.base, t.options)(())))
      assertEquals(notFound.problem.status, StatusCode.NotFound)
    }

  test("client: security inputs are written by the scheme's rules, the security logic's errors are Left"):
    val e = endpoint.get
      .securityIn(auth.bearer)
      .in("me")
      .errorOut(oneOf[Unauthorized](oneOfVariant(StatusCode.Unauthorized, jsonBody[Unauthorized])))
      .out(stringBody)
    val served = e
      .serverSecurityLogic[String, Future](token =>
        Future.successful(if token == "t0k3n" then Right("ada") else Left(Unauthorized("unknown token")))
      )
      .serverLogicSuccess((user, _) => Future.successful(s"hello $user"))
    val basic = endpoint.get.securityIn(auth.basic).in("basic").out(stringBody)
    val basicServed = basic
      .serverSecurityLogic[UsernamePassword, Future](up => Future.successful(Right(up)))
      .serverLogicSuccess((up, _) => Future.successful(s"${up.username}:${up.password}"))
    // Either scheme: the value's type says which one the client writes
    val either = endpoint.get
      .securityIn(auth.firstOf(auth.bearer, auth.apiKey(header[Long]("X-Key"))))
      .in("either")
      .out(stringBody)
    val eitherServed = either
      .serverSecurityLogic[String | Long, Future](who => Future.successful(Right(who.toString)))
      .serverLogicSuccess((who, _) => Future.successful(s"as $who"))
    withServer(served, basicServed, eitherServed) { t =>
      val e2 = either.secureClient[Future](t.base, t.options)
      assertEquals(call(e2("t0k3n")(())), Right("as t0k3n"))
      assertEquals(call(e2(42L)(())), Right("as 42"))
      val me = e.secureClient[Future](t.base, t.options)
      assertEquals(call(me("t0k3n")(())), Right("hello ada"))
      assertEquals(call(me("other")(())), Left(Unauthorized("unknown token")))
      val b = basic.secureClient[Future](t.base, t.options)
      assertEquals(call(b(UsernamePassword("ada", "pä:ss"))(())), Right("ada:pä:ss"))
    }

  test("client: byte bodies of a MiB, and methods inferred or set"):
    val bytes = Array.tabulate[Byte](1024 * 1024 + 3)(i => (i * 13).toByte)
    val echo = endpoint.in("bytes").in(byteArrayBody).out(byteArrayBody)
    val delete = endpoint.delete.in("bytes" / path[Int]("id")).out(statusCode(StatusCode.NoContent))
    withServer(
      echo.serverLogicSuccess[Future](b => Future.successful(b.reverse)),
      delete.serverLogicSuccess[Future](_ => Future.successful(()))
    ) { t =>
      val got = call(echo.client[Future](t.base, t.options)(bytes))
      assertEquals(got.map(_.toSeq), Right(bytes.reverse.toSeq))
      assertEquals(call(delete.client[Future](t.base, t.options)(5)), Right(()))
    }

  test("client: streamed bodies both ways, as a Flow.Publisher and an InputStream"):
    val bytes = Array.tabulate[Byte](3 * 1024 * 1024 + 5)(i => (i * 7 + i / 1024).toByte)
    val expected = s"${bytes.length} ${Sha256.of(bytes)}"
    val upPublisher = endpoint.post.in("up" / "publisher").in(publisherBody).out(stringBody)
    val upInput = endpoint.post.in("up" / "input").in(inputStreamBody).out(stringBody)
    val downPublisher = endpoint.get.in("down" / "publisher").out(publisherBody)
    val downInput = endpoint.get.in("down" / "input").out(inputStreamBody)
    withServer(
      upPublisher.serverLogicSuccess[Future](digestOf),
      upInput.serverLogicSuccess[Future](in => Future(summary(in))(using scala.concurrent.ExecutionContext.global)),
      downPublisher.serverLogicSuccess[Future](_ => Future.successful(BodyPublishers.ofByteArray(bytes))),
      downInput.serverLogicSuccess[Future](_ =>
        Future.successful(java.io.ByteArrayInputStream(bytes): InputStream)
      )
    ) { t =>
      assertEquals(
        call(upPublisher.client[Future](t.base, t.options)(BodyPublishers.ofByteArray(bytes))),
        Right(expected)
      )
      val in = java.io.ByteArrayInputStream(bytes)
      assertEquals(call(upInput.client[Future](t.base, t.options)(in)), Right(expected))
      val published = call(downPublisher.client[Future](t.base, t.options)(())).toOption.get
      assertEquals(call(digestOf(published)), expected)
      val read = call(downInput.client[Future](t.base, t.options)(())).toOption.get
      try assertEquals(summary(read), expected)
      finally read.close()
    }

  test("client: files sent and received, never held whole"):
    val bytes = Array.tabulate[Byte](2 * 1024 * 1024 + 1)(i => (i * 5).toByte)
    val file = Files.createTempFile("client-upload", ".bin")
    Files.write(file, bytes)
    val up = endpoint.post.in("file").in(fileBody).out(stringBody)
    val down = endpoint.get.in("file").out(fileBody)
    try
      withServer(
        up.serverLogicSuccess[Future](p => Future.successful(s"${Files.size(p)} ${Sha256.of(Files.readAllBytes(p))}")),
        down.serverLogicSuccess[Future](_ => Future.successful(file))
      ) { t =>
        assertEquals(call(up.client[Future](t.base, t.options)(file)), Right(s"${bytes.length} ${Sha256.of(bytes)}"))
        val got: Path = call(down.client[Future](t.base, t.options)(())).toOption.get
        try assertEquals(Sha256.of(Files.readAllBytes(got)), Sha256.of(bytes))
        finally Files.deleteIfExists(got)
      }
    finally Files.deleteIfExists(file)

  test("client: a multipart body's fields and files arrive as the server's codec reads them"):
    val e = endpoint.post.in("upload").in(multipartBody[Upload]).out(stringBody)
    val cover = Files.createTempFile("client-cover", ".png")
    Files.write(cover, Array.tabulate[Byte](70000)(_.toByte))
    val served = e.serverLogicSuccess[Future](u =>
      Future.successful(
        s"${u.title}|${u.copies}|${u.cover.fileName}|${Files.size(u.cover.body)}|${u.notes}|${u.tags}"
      )
    )
    try
      withServer(served) { t =>
        val upload =
          Upload("Dune \"1\"", 3, Part("cover", cover, Some("cover.png"), Some("image/png")), None, List("a", "b"))
        assertEquals(
          call(e.client[Future](t.base, t.options)(upload)),
          Right("Dune \"1\"|3|Some(cover.png)|70000|None|List(a, b)")
        )
      }
    finally Files.deleteIfExists(cover)

  test("client: direct style calls block until the answer"):
    val e = endpoint.get.in("direct" / path[Int]("n")).out(stringBody)
    withServer(e.serverLogicSuccess[Future](n => Future.successful(s"n=$n"))) { t =>
      val c = e.client[Identity](t.base, t.options)
      assertEquals(c(4), Right("n=4"))
      val undecodable = endpoint.get.in("direct" / path[Int]("n")).out(plainBody[Int])
      val failure = intercept[ClientException.UndecodableResponse](undecodable.client[Identity](t.base, t.options)(4))
      assertEquals(failure.status, 200)
    }

  test("client: an endpoint a client can't call is refused when the client is made, saying why"):
    val e = endpoint.post.in("fold").in(chunksBody).out(stringBody)
    val failure = intercept[IllegalArgumentException](e.client[Future]("http://localhost:1"))
    assert(failure.getMessage.contains("BodyChunks"), failure.getMessage)

  test("client: a WebSocket opened by the client, its messages both ways; a refused handshake a failure"):
    val shout = endpoint.get.in("shout").in(header[String]("X-Suffix")).out(webSocketBody[String, String])
    val logic = shout.serverLogicSuccess[Future](suffix => Future.successful(WebSocketPipe.map(_.toUpperCase + suffix)))
    withServer(logic) { t =>
      val c = shout.client[Future](t.base, t.options)
      val pipe = call(c("!")).toOption.get
      val long = "x" * 100000
      // The client's messages end only once the answers are in: a server may close as soon as the client does
      val outgoing = java.util.concurrent.SubmissionPublisher[String]()
      val answers = collect(pipe(outgoing), upTo = 3)
      List("a", "b", long).foreach(outgoing.submit)
      assertEquals(call(answers), List("A!", "B!", long.toUpperCase + "!"))
      outgoing.close()
      intercept[IllegalStateException](pipe(outgoing))
      // No header: the server refuses the handshake with a 400
      val bare = endpoint.get.in("shout").out(webSocketBody[String, String])
      val refused = intercept[ClientException.WebSocketRefused](call(bare.client[Future](t.base, t.options)(())))
      assertEquals(refused.status, 400)
    }

  test("client: Server-Sent Events read back as they were sent, keep-alive comments skipped"):
    val sent = List(
      ServerSentEvent(data = Some("first line\nsecond line"), event = Some("note"), id = Some("1")),
      ServerSentEvent(data = Some(""), retry = Some(2500)),
      ServerSentEvent(id = Some("3")),
      ServerSentEvent.data("ünïcode, and a long one: " + "x" * 20000)
    )
    val e = endpoint.get.in("events").out(sseBody(keepAlive = 20.millis))
    val logic = e.serverLogicSuccess[Future] { _ =>
      // Paced, so that the keep-alive writes comments between the events.
      val events = java.util.concurrent.SubmissionPublisher[ServerSentEvent]()
      Future {
        for event <- sent do
          Thread.sleep(60)
          events.submit(event)
        events.close()
      }(using scala.concurrent.ExecutionContext.global)
      Future.successful(events)
    }
    withServer(logic) { t =>
      val got = call(e.client[Future](t.base, t.options)(()))
      assertEquals(call(collect(got.toOption.get)), sent)
    }

object ClientTests:
  final case class Upload(title: String, copies: Int, cover: Part[Path], notes: Option[String], tags: List[String])
      derives MultipartCodec

  def summary(in: InputStream): String = Digesting.of(in)

  /** The elements of a publisher, asked for one at a time: all of them, or the first `upTo`, then cancelled. */
  def collect[T](publisher: Flow.Publisher[T], upTo: Int = Int.MaxValue): Future[List[T]] =
    val done = Promise[List[T]]()
    publisher.subscribe(new Flow.Subscriber[T]:
      private val all = List.newBuilder[T]
      private var count = 0
      private var subscription: Flow.Subscription | Null = null
      def onSubscribe(s: Flow.Subscription): Unit =
        subscription = s
        s.request(1)
      def onNext(item: T): Unit =
        all += item
        count += 1
        if count < upTo then subscription.nn.request(1)
        else
          subscription.nn.cancel()
          done.trySuccess(all.result())
      def onError(t: Throwable): Unit = done.tryFailure(t)
      def onComplete(): Unit = done.trySuccess(all.result()))
    done.future

  /** Reads a publisher one chunk at a time: its size and digest. */
  def digestOf(body: Flow.Publisher[ByteBuffer]): Future[String] = Digesting.of(body)
