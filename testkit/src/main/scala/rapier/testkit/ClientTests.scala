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

  test(anyStyle("client: path, query, header and cookie inputs arrive as the server reads them")):
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

  test(anyStyle("client: status codes, headers and cookies of the output are read back")):
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

  test(anyStyle("client: JSON bodies round-trip, and typed errors are Left, each variant by its status")):
    val e = Endpoints.orders
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

  test(anyStyle("client: what the server refuses before the logic is a ProblemAnswer naming each input that failed")):
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

  test(anyStyle("client: security inputs are written by the scheme's rules, the security logic's errors are Left")):
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
    val either = Endpoints.either
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

  test(anyStyle("client: every kind of input and output an endpoint can hold is written by the client and read back")):
    import Endpoints.{inputs, keyed, outputs, unanswered}
    import NegotiationTests.{Greeting, Signup}
    val inputsServed = inputs.serverLogicSuccess[Future] { (id, rest, q, c, h, method, signup) =>
      Future.successful(s"$id|${rest.mkString("+")}|$q|$c|$h|${method.name}|$signup")
    }
    val keyedServed = keyed
      .serverSecurityLogic[String, Future]((key, sid) => Future.successful(Right(s"$key/$sid")))
      .serverLogicSuccess { (who, in) =>
        val (page, params, headers) = in
        val a = headers.filter(_.is("x-a")).map(_.value)
        Future.successful(s"$who|$page|${params.getAll("x")}|$a")
      }
    val outputsServed = outputs.serverLogic[Future] { (n, accept, sent) =>
      Future.successful(
        if n == 410 then Left(())
        else
          val cookie = Option.when(n > 0)(CookieValueWithMeta(s"c$n", path = Some("/")))
          val greeting = Greeting(s"${sent.text} $accept")
          Right((StatusCode(if n > 0 then 201 else 200), n * 2, List(Header("X-Many", s"$n")), cookie, greeting))
      )
    }
    val unansweredServed = unanswered.serverLogicSuccess[Future](_ => Future.successful(()))
    withServer(inputsServed, keyedServed, outputsServed, unansweredServed) { t =>
      val signup = Signup("Ada L", 36, List("a", "b&c"), Some(true))
      // The method is read off the request by the server: the client writes none for it, whatever it is given
      assertEquals(
        call(inputs.client[Future](t.base, t.options)((7, List("a b", "ü"), "q&r", "c=1", "h", Method.GET, signup))),
        Right(s"7|a b+ü|q&r|c=1|h|POST|$signup")
      )
      val params = QueryParams("x" -> "1", "x" -> "2 3")
      assertEquals(
        call(
          keyed.secureClient[Future](t.base, t.options)(("k1", "s1"))(
            (Page(10, Some("z")), params, List(Header("X-A", "one"), Header("X-A", "two")))
          )
        ),
        Right("k1/s1|Page(10,Some(z))|List(1, 2 3)|List(one, two)")
      )
      val out = outputs.client[Future](t.base, t.options)
      // The representation the server chose, by the Accept the client wrote, is read back by its content type
      val json = "application/json"
      val Right((status, doubled, all, cookie, greeting)) = call(out((5, json, Greeting("hi")))): @unchecked
      assertEquals((status, doubled, cookie.map(_.value)), (StatusCode(201), 10, Some("c5")))
      assertEquals((greeting, all.filter(_.is("x-many")).map(_.value)), (Greeting(s"hi $json"), List("5")))
      val Right((plainStatus, _, _, none, plain)) = call(out((0, "text/plain", Greeting("ho")))): @unchecked
      assertEquals((plainStatus, none, plain), (StatusCode(200), None, Greeting("ho text/plain")))
      assertEquals(call(out((410, json, Greeting("")))), Left(()))
      assertEquals(call(unanswered.client[Future](t.base, t.options)(3)), Right(()))
    }

  test(
    anyStyle("client: the kit's client tests call every kind of input and output; the others are refused, saying why")
  ):
    val covered = Endpoints.all.flatMap(kinds).toSet
    assertEquals(covered -- everyKind, Set.empty[String], "kinds everyKind doesn't list")
    assertEquals(everyKind -- covered -- refused.keySet, Set.empty[String], "kinds no client test calls")
    for (kind, (e, why, make)) <- refused do
      val failure = intercept[IllegalArgumentException](make())
      assert(kinds(e).contains(kind) && failure.getMessage.contains(why), s"$kind: ${failure.getMessage}")

  test(anyStyle("client: byte bodies of a MiB, and methods inferred or set")):
    val bytes = Array.tabulate[Byte](1024 * 1024 + 3)(i => (i * 13).toByte)
    val echo = Endpoints.bytes
    val delete = endpoint.delete.in("bytes" / path[Int]("id")).out(statusCode(StatusCode.NoContent))
    withServer(
      echo.serverLogicSuccess[Future](b => Future.successful(b.reverse)),
      delete.serverLogicSuccess[Future](_ => Future.successful(()))
    ) { t =>
      val got = call(echo.client[Future](t.base, t.options)(bytes))
      assertEquals(got.map(_.toSeq), Right(bytes.reverse.toSeq))
      assertEquals(call(delete.client[Future](t.base, t.options)(5)), Right(()))
    }

  test(anyStyle("client: streamed bodies both ways, as a Flow.Publisher and an InputStream")):
    val bytes = Array.tabulate[Byte](3 * 1024 * 1024 + 5)(i => (i * 7 + i / 1024).toByte)
    val expected = s"${bytes.length} ${Sha256.of(bytes)}"
    import Endpoints.{downInput, downPublisher, upInput, upPublisher}
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

  test(anyStyle("client: files sent and received, never held whole")):
    val bytes = Array.tabulate[Byte](2 * 1024 * 1024 + 1)(i => (i * 5).toByte)
    val file = Files.createTempFile("client-upload", ".bin")
    Files.write(file, bytes)
    import Endpoints.{fileDown as down, fileUp as up}
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

  test(anyStyle("client: a multipart body's fields and files arrive as the server's codec reads them")):
    val e = Endpoints.upload
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

  test(anyStyle("client: a path parameter of '.', '..' or nothing is refused, the request not made")):
    val calls = java.util.concurrent.atomic.AtomicInteger()
    val e = endpoint.get.in("files" / path[String]("name") / "meta").in(paths).out(stringBody)
    val served = e.serverLogicSuccess[Future] { (name, rest) =>
      calls.incrementAndGet()
      Future.successful(s"$name|${rest.mkString("/")}")
    }
    withServer(served) { t =>
      val c = e.client[Future](t.base, t.options)
      for (name, rest) <- List(".." -> Nil, "." -> Nil, "" -> Nil, "ok" -> List("a", ".."), "ok" -> List("")) do
        val refused = intercept[ClientException.InvalidInput](call(c((name, rest))))
        assert(refused.getMessage.contains(if name == "ok" then "the path's rest" else "the path parameter name"))
      assertEquals(calls.get, 0, "no request was made")
      assertEquals(call(c(("..a", List(".b", "c d")))), Right("..a|.b/c d"))
      val direct = e.client[Identity](t.base, t.options)
      intercept[ClientException.InvalidInput](direct(("..", Nil)))
    }

  test(anyStyle("client: a body read whole past maxResponseSize fails the call, its length declared or not")):
    val text = "r" * 65536
    val sized =
      endpoint.get.in("big" / "sized").out(stringBody).serverLogicSuccess[Future](_ => Future.successful(text))
    // An InputStream's answer: its length unknown, chunked
    val chunked = endpoint.get.in("big" / "chunked").out(inputStreamBody).serverLogicSuccess[Future] { _ =>
      Future.successful(java.io.ByteArrayInputStream(text.getBytes): InputStream)
    }
    withServer(sized, chunked) { t =>
      // A client of its own for each call refused: its stream is cancelled mid-body, and Ember over HTTP/2 then ends
      // the connection with a GOAWAY the JDK 17 client's next request on it fails with
      def small = ClientOptions(http = protocol.newClient()).withMaxResponseSize(1024)
      val tooLarge = intercept[ClientException.ResponseTooLarge](call(sized.endpoint.client[Future](t.base, small)(())))
      assertEquals(tooLarge.limit, 1024L)
      intercept[ClientException.ResponseTooLarge](sized.endpoint.client[Identity](t.base, small)(()))
      val asBytes = endpoint.get.in("big" / "chunked").out(byteArrayBody)
      intercept[ClientException.ResponseTooLarge](call(asBytes.client[Future](t.base, small)(())))
      assertEquals(call(sized.endpoint.client[Future](t.base, t.options)(())), Right(text))
      assertEquals(call(asBytes.client[Future](t.base, t.options)(())).map(_.length), Right(65536))
      // A stream is its reader's: no limit of the client's
      val streamed = call(chunked.endpoint.client[Future](t.base, small)(())).toOption.get
      try assertEquals(streamed.readAllBytes().length, 65536)
      finally streamed.close()
    }

  test(anyStyle("client: direct style calls block until the answer")):
    val e = endpoint.get.in("direct" / path[Int]("n")).out(stringBody)
    withServer(e.serverLogicSuccess[Future](n => Future.successful(s"n=$n"))) { t =>
      val c = e.client[Identity](t.base, t.options)
      assertEquals(c(4), Right("n=4"))
      val undecodable = endpoint.get.in("direct" / path[Int]("n")).out(plainBody[Int])
      val failure = intercept[ClientException.UndecodableResponse](undecodable.client[Identity](t.base, t.options)(4))
      assertEquals(failure.status, 200)
    }

  test(anyStyle("client: a WebSocket opened by the client, its messages both ways; a refused handshake a failure")):
    val shout = Endpoints.shout
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

  test(anyStyle("client: Server-Sent Events read back as they were sent, keep-alive comments skipped")):
    val sent = List(
      ServerSentEvent(data = Some("first line\nsecond line"), event = Some("note"), id = Some("1")),
      ServerSentEvent(data = Some(""), retry = Some(2500)),
      ServerSentEvent(id = Some("3")),
      ServerSentEvent.data("ünïcode, and a long one: " + "x" * 20000)
    )
    val e = Endpoints.events
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
  import NegotiationTests.{Greeting, Signup, given}
  import rapier.json.jsoniter.jsonBody

  final case class Upload(title: String, copies: Int, cover: Part[Path], notes: Option[String], tags: List[String])
      derives MultipartCodec
  final case class Page(limit: Int, after: Option[String])

  /** The endpoints the client tests call, beside those a test makes for itself. */
  object Endpoints:
    val inputs = endpoint.post
      .in("inputs" / path[Int]("id") / paths)
      .in(query[String]("q"))
      .in(cookie[String]("c"))
      .in(header[String]("X-H"))
      .in(header("X-Fixed", "fixed"))
      .in(requestMethod)
      .in(formBody[Signup])
      .out(stringBody)
    val keyed = endpoint.get
      .securityIn(auth.apiKey(query[String]("key")))
      .securityIn(auth.apiKey(cookie[String]("sid")))
      .in("keyed")
      .in(query[Int]("limit").and(query[Option[String]]("after")).mapTo[Page])
      .in(queryParams)
      .in(headers)
      .out(stringBody)
    val outputs = endpoint.post
      .in("outputs" / path[Int]("n"))
      .in(header[String]("Accept"))
      .in(oneOfBody(jsonBody[Greeting], plainBody[Greeting]))
      .errorOut(statusCode(StatusCode.Gone))
      .out(statusCode)
      .out(header("X-Fixed", "fixed"))
      .out(header[Int]("X-N"))
      .out(headers)
      .out(setCookieOpt("s"))
      .out(oneOfBody(jsonBody[Greeting], plainBody[Greeting]))
    val orders = endpoint.put
      .in("orders" / path[Long]("id"))
      .in(jsonBody[Order])
      .errorOut(
        oneOf[NotFound | Conflict](
          oneOfVariant(StatusCode.NotFound, jsonBody[NotFound]),
          oneOfVariant(StatusCode.Conflict, jsonBody[Conflict])
        )
      )
      .out(jsonBody[Order])
    val either = endpoint.get
      .securityIn(auth.firstOf(auth.bearer, auth.apiKey(header[Long]("X-Key"))))
      .in("either")
      .out(stringBody)
    val unanswered = endpoint.delete.in("unanswered" / path[Int]("id"))
    val bytes = endpoint.in("bytes").in(byteArrayBody).out(byteArrayBody)
    val upPublisher = endpoint.post.in("up" / "publisher").in(publisherBody).out(stringBody)
    val upInput = endpoint.post.in("up" / "input").in(inputStreamBody).out(stringBody)
    val downPublisher = endpoint.get.in("down" / "publisher").out(publisherBody)
    val downInput = endpoint.get.in("down" / "input").out(inputStreamBody)
    val fileUp = endpoint.post.in("file").in(fileBody).out(stringBody)
    val fileDown = endpoint.get.in("file").out(fileBody)
    val upload = endpoint.post.in("upload").in(multipartBody[Upload]).out(stringBody)
    val fold = endpoint.post.in("fold").in(chunksBody).out(stringBody)
    val shout = endpoint.get.in("shout").in(header[String]("X-Suffix")).out(webSocketBody[String, String])
    val events = endpoint.get.in("events").out(sseBody(keepAlive = 20.millis))
    val multipartOut = endpoint.get.in("parts").out(multipartBody[Upload])

    val all: List[Endpoint[?, ?, ?, ?]] = List(
      inputs,
      keyed,
      outputs,
      orders,
      either,
      unanswered,
      bytes,
      upPublisher,
      upInput,
      downPublisher,
      downInput,
      fileUp,
      fileDown,
      upload,
      shout,
      events
    )

  /** What a client can't call, by kind: the endpoint that holds it, what the refusal says, and a client made for it. */
  val refused: Map[String, (Endpoint[?, ?, ?, ?], String, () => Any)] = Map(
    "in: body: stream of BodyChunks" ->
      (Endpoints.fold, "BodyChunks", () => Endpoints.fold.client[Future]("http://localhost:1")),
    "out: body: multipart" ->
      (Endpoints.multipartOut, "multipart", () => Endpoints.multipartOut.client[Future]("http://localhost:1"))
  )

  /**
   * Every kind [[kinds]] names. A new kind of input or output gets a case there (its matches are exhaustive) and a name
   * here, and then a client test that calls it.
   */
  val everyKind: Set[String] =
    val both = List("empty", "mapped", "header", "fixed header", "headers", "one of bodies") ++
      List("string", "bytes", "file", "multipart", "stream of Flow.Publisher[ByteBuffer]", "stream of InputStream")
        .map("body: " + _)
    val in = List("method", "path segment", "path", "paths", "query", "query params", "cookie", "auth by header") ++
      List("auth by query", "auth by cookie", "auth alternatives", "extracted", "body: stream of BodyChunks")
    val out = List("status", "status code", "set-cookie", "websocket", "one of")
    ((both ++ in).map("in: " + _) ++ (both ++ out).map("out: " + _)).toSet

  /** The kinds of what an endpoint's inputs and outputs hold: what a client writes, and reads back. */
  def kinds(e: Endpoint[?, ?, ?, ?]): Set[String] =
    val in = List(e.securityInput, e.input).flatMap(i => treeKinds(IOTree.ofInput(i))(inputKind))
    val out = List(e.errorOutput, e.output).flatMap(o => treeKinds(IOTree.ofOutput(o))(outputKind))
    (in.map("in: " + _) ++ out.map("out: " + _)).toSet

  private def treeKinds[L](tree: IOTree[L])(kind: L => List[String]): List[String] = tree match
    case IOTree.Leaf(leaf, _) => kind(leaf)
    case IOTree.Empty => List("empty")
    case IOTree.Sequence(parts, _) => parts.flatMap(treeKinds(_)(kind))
    case IOTree.Mapped(inner, _, _) => "mapped" :: treeKinds(inner)(kind)

  private def inputKind(leaf: EndpointInput.Basic[?]): List[String] = leaf match
    case _: EndpointInput.FixedMethod => List("method")
    case _: EndpointInput.FixedPath => List("path segment")
    case _: EndpointInput.PathCapture[?] => List("path")
    case _: EndpointInput.PathsCapture[?] => List("paths")
    case _: EndpointInput.Query[?] => List("query")
    case _: EndpointInput.AllQuery[?] => List("query params")
    case _: EndpointInput.Cookie[?] => List("cookie")
    case EndpointInput.Auth(_, source, _) => inputKind(source).map("auth by " + _)
    case EndpointInput.AuthAlternatives(alternatives, _) => "auth alternatives" :: alternatives.flatMap(inputKind)
    case _: EndpointInput.ExtractFromRequest[?] => List("extracted")
    case io: (EndpointIO.Body[?, ?] | EndpointIO.OneOfBody[?] | EndpointIO.Header[?] | EndpointIO.FixedHeader |
          EndpointIO.AllHeaders[?]) =>
      ioKind(io)

  private def outputKind(leaf: EndpointOutput[?]): List[String] = leaf match
    case EndpointOutput.OneOf(variants) =>
      "one of" :: variants.flatMap(v => treeKinds(IOTree.ofOutput(v.output))(outputKind))
    case _: EndpointOutput.FixedStatusCode => List("status")
    case _: EndpointOutput.StatusCodeValue => List("status code")
    case _: EndpointOutput.SetCookie[?] => List("set-cookie")
    case _: EndpointOutput.WebSocketBody[?, ?, ?] => List("websocket")
    case io: (EndpointIO.Body[?, ?] | EndpointIO.OneOfBody[?] | EndpointIO.Header[?] | EndpointIO.FixedHeader |
          EndpointIO.AllHeaders[?]) =>
      ioKind(io)
    case other => throw IllegalStateException(s"not a leaf of an output tree: $other")

  private def ioKind(
      io: EndpointIO.Body[?, ?] | EndpointIO.OneOfBody[?] | EndpointIO.Header[?] | EndpointIO.FixedHeader |
        EndpointIO.AllHeaders[?]
  ): List[String] = io match
    case EndpointIO.Body(raw, _, _) => List(s"body: ${rawKind(raw)}")
    case EndpointIO.OneOfBody(variants, _) => "one of bodies" :: variants.map(b => s"body: ${rawKind(b.raw)}")
    case _: EndpointIO.Header[?] => List("header")
    case _: EndpointIO.FixedHeader => List("fixed header")
    case _: EndpointIO.AllHeaders[?] => List("headers")

  private def rawKind(raw: RawBodyType[?]): String = raw match
    case RawBodyType.StringBody(_) => "string"
    case RawBodyType.ByteArrayBody => "bytes"
    case RawBodyType.FileBody => "file"
    case RawBodyType.MultipartBody(_, _) => "multipart"
    case RawBodyType.StreamBody(kind) => s"stream of ${kind.name}"

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
