package rapier.testkit

import rapier.*
import rapier.server.*

import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.util.Try

/**
 * Slow and broken clients: read deadlines for heads and bodies (slowloris), clients that vanish mid-request or
 * mid-response.
 */
trait SlowClientTests extends ServerTestSupport:
  private given ExecutionContext = ExecutionContext.global

  private val hello = endpoint.get.in("hello").out(stringBody).serverLogicSuccess(_ => Future.successful("hello"))
  private val echo = endpoint.post.in("echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)
  private val large = endpoint.get.in("large").out(byteArrayBody).serverLogicSuccess { _ =>
    Future.successful(new Array[Byte](4 * 1024 * 1024))
  }

  /**
   * Sends `first`, then `trickle` every 100 ms until the server answers; returns the answer, whether the connection
   * then closed, and how long the answer took.
   */
  private def trickleUntilAnswered(t: Target, first: String, trickle: String): (TestResponse, Boolean, Duration) =
    val c = t.raw()
    try
      val start = System.nanoTime()
      c.send(first)
      val answer = Future(c.readResponse())
      while !answer.isCompleted && (System.nanoTime() - start).nanos < 8.seconds do
        Thread.sleep(100)
        Try(c.send(trickle)) // fails once the server has closed
      val response = Await.result(answer, 2.seconds)
      val took = (System.nanoTime() - start).nanos
      (response, c.closedByServer(2000), took)
    finally c.close()

  test(anyStyle("a client trickling its headers is answered 408 at the header deadline, and closed")):
    withServerConfig(TestServerConfig(headerReadTimeout = 600.millis))(hello) { t =>
      val (r, closed, took) = trickleUntilAnswered(t, "GET /hello HTTP/1.1\r\nHost: x\r\n", "X-A: b\r\n")
      assertEquals(r.status, 408)
      assertEquals(r.problem.detail, "The request head did not arrive within 600 milliseconds")
      assert(closed, "the connection stayed open")
      assert(took >= 550.millis && took < 3.seconds, s"answered after $took")
    }

  test(anyStyle("a client sending only empty lines is closed at the header deadline")):
    withServerConfig(TestServerConfig(headerReadTimeout = 600.millis))(hello) { t =>
      val (r, closed, _) = trickleUntilAnswered(t, "\r\n", "\r\n")
      assertEquals(r.status, 408)
      assert(closed)
    }

  test(anyStyle("a client trickling its body is answered 408 at the body deadline, and closed")):
    withServerConfig(TestServerConfig(bodyReadTimeout = 600.millis))(echo) { t =>
      val head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc"
      val (r, closed, took) = trickleUntilAnswered(t, head, "d")
      assertEquals(r.status, 408)
      assertEquals(r.problem.detail, "The request body did not arrive within 600 milliseconds")
      assert(closed)
      assert(took >= 550.millis && took < 3.seconds, s"answered after $took")
    }

  test(anyStyle("a head and a body that arrive in pieces within their deadlines are served")):
    withServerConfig(TestServerConfig(headerReadTimeout = 1.second, bodyReadTimeout = 1.second))(echo) { t =>
      val c = t.raw()
      try
        for _ <- 1 to 2 do // twice on one connection: the deadlines start again with each request
          for piece <- List("POST /echo HTTP/1.1\r\n", "Host: x\r\nContent-Length: 6\r\n", "\r\nabc", "def") do
            c.send(piece)
            Thread.sleep(150)
          assertEquals(c.readResponse().body, "abcdef")
        // Idle between requests is the idle timeout's business, not the header deadline's.
        Thread.sleep(1300)
        c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")
        assertEquals(c.readResponse().body, "ok")
      finally c.close()
    }

  test(anyStyle(
    "while 500 slowloris connections trickle their headers, requests are served, and the deadline closes them all"
  )):
    withServerConfig(TestServerConfig(headerReadTimeout = 2.seconds))(hello) { t =>
      val slow = (1 to 500).map(_ => t.raw().send("GET /hello HTTP/1.1\r\nHost: x\r\n"))
      try
        val start = System.nanoTime()
        val trickling = Future {
          var open = slow.toSet
          while open.nonEmpty && (System.nanoTime() - start).nanos < 10.seconds do
            open = open.filter(c => Try(c.send("X-A: b\r\n")).isSuccess)
            Thread.sleep(200)
          open.size
        }
        // Normal requests meanwhile, each on a new connection.
        val served = (1 to 50).map(_ => t.get("/hello").body)
        assertEquals(served.count(_ == "hello"), 50)
        val took = (System.nanoTime() - start).nanos
        assert(took < 2.seconds, s"normal requests waited for the slow ones: ${took.toMillis} ms")
        // Every slow one is answered 408 and closed.
        val answers = slow.map(c => Try(c.readResponse().status).getOrElse(-1))
        assertEquals(
          answers.count(_ == 408),
          500,
          s"statuses: ${answers.groupBy(identity).view.mapValues(_.size).toMap}"
        )
        assertEquals(Await.result(trickling, 15.seconds), 0, "connections left open")
        assert((System.nanoTime() - start).nanos < 8.seconds)
      finally slow.foreach(_.close())
    }

  test(anyStyle("clients that vanish mid-response leave the server healthy")):
    withServer(hello, large) { t =>
      for _ <- 1 to 20 do
        val c = t.raw()
        c.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\n")
        c.readBytes(1024)
        c.close()
      val c = t.raw()
      c.send("GET /large HTTP/1.1\r\nHost: x\r\n\r\nGET /large HTTP/1.1\r\nHost: x\r\n\r\n")
      c.close() // before reading anything
      assertEquals(t.get("/hello").body, "hello")
      assertEquals(t.get("/large").bytes.length, 4 * 1024 * 1024)
    }
