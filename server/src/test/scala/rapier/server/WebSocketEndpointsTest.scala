package rapier.server

import rapier.*

import scala.concurrent.Future

/** What the interpreter refuses of WebSocket endpoints when it starts, and why. */
class WebSocketEndpointsTest extends munit.FunSuite:
  private def refusal(e: ServerEndpoint[Future]): String =
    intercept[IllegalArgumentException](ServerInterpreter[Future](List(e))).getMessage

  private val echo = webSocketBody[String, String]

  test("a WebSocket is opened by a GET, and reads no body"):
    val post = endpoint.post.in("ws").out(echo).serverLogicSuccess(_ => Future.successful(in => in))
    assert(refusal(post).contains("a WebSocket is opened by a GET"), refusal(post))
    val noMethod = endpoint.in("ws").out(echo).serverLogicSuccess(_ => Future.successful(in => in))
    assert(refusal(noMethod).contains("a WebSocket is opened by a GET"), refusal(noMethod))
    val withBody =
      endpoint.get.in("ws").in(stringBody).out(echo).serverLogicSuccess(_ => Future.successful(in => in))
    assert(refusal(withBody).contains("has no body to read"), refusal(withBody))

  test("a WebSocket is a success's answer, not an error's"):
    val inError = endpoint.get.in("ws").errorOut(echo).out(stringBody).serverLogic(_ => Future.successful(Right("x")))
    assert(refusal(inError).contains("not of its errors"), refusal(inError))

  test("a backend without WebSockets refuses them at start, naming them"):
    val ws = endpoint.get.in("ws").out(echo).serverLogicSuccess(_ => Future.successful(in => in))
    val plain = endpoint.get.in("plain").out(stringBody).serverLogicSuccess(_ => Future.successful("x"))
    val both = ServerInterpreter[Future](List(ws, plain))
    assert(both.servesWebSockets)
    val e = intercept[IllegalArgumentException](both.withoutWebSockets("Somewhere"))
    assert(e.getMessage.contains("not served on Somewhere") && e.getMessage.contains("/ws"), e.getMessage)
    val none = ServerInterpreter[Future](List(plain))
    assert(none.withoutWebSockets("Somewhere") eq none)
