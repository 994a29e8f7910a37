package rapier.testkit

import rapier.*
import rapier.server.*

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.Future

/**
 * HTTP/1.1 framing and syntax: every request of [[MalformedRequests]] is refused with its status and words and closes
 * its connection, and nothing sent after it on that connection reaches a handler. The legal variations still work.
 *
 * What matters is that the connection closes; a response may or may not announce it with `Connection: close` (a
 * backend's own parser may answer some of these itself).
 */
trait FramingTests extends ServerTestSupport:
  private val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess(_ => Future.successful("hello"))
  private val echo = endpoint.post.in("echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)

  private val canary = "GET /canary HTTP/1.1\r\nHost: x\r\n\r\n"

  private def canaryEndpoint(calls: AtomicInteger) =
    endpoint.get.in("canary").out(stringBody).serverLogicSuccess { _ =>
      calls.incrementAndGet()
      Future.successful("canary")
    }

  /** What a backend's server did with one malformed request, or None when it did as it must. */
  private def misbehaviour(t: Target, c: MalformedRequests.Case): Option[String] =
    val connection = t.raw()
    try
      connection.send(c.request + canary)
      val answer = scala.util.Try(connection.readResponse())
      answer match
        case scala.util.Failure(e) => Some(s"no response (${e.getClass.getSimpleName}: ${e.getMessage})")
        case scala.util.Success(r) if r.status != c.status => Some(s"answered ${r.status}, not ${c.status}")
        case _ if !connection.closedByServer(1000) => Some("the connection stayed open, or a second response came")
        case _ => None
    finally connection.close()

  private def detail(r: TestResponse): String = scala.util.Try(r.problem.detail).getOrElse(s"(no problem) ${r.body}")

  /** How a server worded its refusal of one malformed request, or None when in the corpus's words. */
  private def otherWords(t: Target, c: MalformedRequests.Case): Option[String] =
    scala.util.Try(t.rawExchange(c.request)) match
      case scala.util.Success(r) if MalformedRequests.sameWords(detail(r), c.problem.message) => None
      case scala.util.Success(r) => Some(s"said '${detail(r)}', not '${c.problem.message}'")
      case scala.util.Failure(e) => Some(s"no response (${e.getClass.getSimpleName}: ${e.getMessage})")

  private def corpus = MalformedRequests.all.filterNot(c => unsupportedMalformedRequests.contains(c.name))

  test(
    anyStyle(s"each of ${corpus.size} malformed requests is refused, closes its connection, and hides what follows")
  ):
    val unknown = unsupportedMalformedRequests.keySet -- MalformedRequests.all.map(_.name)
    assert(unknown.isEmpty, s"declared unsupported, but not in the corpus: $unknown")
    val calls = AtomicInteger()
    withServer(hello, echo, canaryEndpoint(calls)) { t =>
      val failures = corpus.flatMap(c => misbehaviour(t, c).map(m => s"${c.name}: $m"))
      assert(failures.isEmpty, s"${failures.size} case(s) not refused as they must be:\n${failures.mkString("\n")}")
      assertEquals(calls.get, 0, "the canary was called after a malformed request")
      // And the server is as healthy as before: a thousand valid requests on ten connections.
      for _ <- 1 to 10 do
        val c = t.raw()
        try
          for _ <- 1 to 100 do
            c.send(canary)
            assertEquals(c.readResponse().body, "canary")
        finally c.close()
      assertEquals(calls.get, 1000)
    }

  test(anyStyle("a malformed request's refusal says what is wrong with it, in the same words on every server")):
    withServer(hello, echo) { t =>
      val failures = corpus.flatMap(c => otherWords(t, c).map(m => s"${c.name}: $m"))
      assert(failures.isEmpty, s"${failures.size} case(s) worded otherwise:\n${failures.mkString("\n")}")
    }

  test(anyStyle(s"${MalformedRequests.legal.size} legal variations of the syntax are served")):
    val unknown = unsupportedLegalRequests.keySet -- MalformedRequests.legal.map(_.name)
    assert(unknown.isEmpty, s"declared unsupported but not in the corpus: $unknown")
    withServer(hello, echo) { t =>
      val legal = MalformedRequests.legal.filterNot(l => unsupportedLegalRequests.contains(l.name))
      val failures = legal.flatMap { l =>
        val answer = scala.util.Try(t.rawExchange(l.request))
        answer match
          case scala.util.Success(r) if r.status == 200 && r.body == l.body => None
          case scala.util.Success(r) => Some(s"${l.name}: answered ${r.status} ${r.body.take(200)}")
          case scala.util.Failure(e) => Some(s"${l.name}: ${e.getMessage}")
      }
      assert(failures.isEmpty, s"${failures.size} legal request(s) not served:\n${failures.mkString("\n")}")
    }

  test(anyStyle("OPTIONS * is answered for the server as a whole, with the methods of its endpoints")):
    val calls = AtomicInteger()
    withServer(hello, echo, canaryEndpoint(calls)) { t =>
      val c = t.raw()
      try
        c.send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n" + canary)
        val r = c.readResponse()
        assertEquals((r.status, r.header("Allow"), r.body), (200, Some("GET, HEAD, POST, OPTIONS"), ""))
        assertEquals(c.readResponse().body, "canary")
      finally c.close()
      assertEquals(calls.get, 1)
    }

  test(anyStyle(
    s"${MalformedRequests.tolerated.size} request(s) outside the grammar that can't change the framing are served"
  )):
    val calls = AtomicInteger()
    withServer(hello, echo, canaryEndpoint(calls)) { t =>
      for l <- MalformedRequests.tolerated do
        val c = t.raw()
        try
          c.send(l.request + canary)
          assertEquals(c.readResponse().body, l.body, l.name)
          assertEquals(c.readResponse().body, "canary", l.name)
        finally c.close()
      assertEquals(calls.get, MalformedRequests.tolerated.size)
    }
