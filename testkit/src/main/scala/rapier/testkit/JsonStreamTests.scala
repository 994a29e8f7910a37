package rapier.testkit

import com.github.plokhotnyuk.jsoniter_scala.core.{readFromArray, writeToArray}
import rapier.*
import rapier.json.jsoniter.{jsonArrayBody, ndjsonBody}
import rapier.server.*
import rapier.testkit.TestModel.{*, given}

import java.nio.charset.StandardCharsets
import java.util.concurrent.Flow
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.{Future, Promise}

/**
 * Bodies that are streams of JSON values, a JSON array or newline-delimited, read and written value by value: large
 * ones go through whole and in order, and a bad element is a 400 that names it.
 */
trait JsonStreamTests extends ServerTestSupport:
  private def line(i: Int): Line = Line(s"SKU-$i", 1 + i % 9, BigDecimal(i % 1000) / 4)

  /** Reads every line of a stream, one requested at a time, answering with their count and total quantity. */
  private def total(lines: Flow.Publisher[Line]): Future[String] =
    val done = Promise[String]()
    lines.subscribe(new Flow.Subscriber[Line]:
      private var subscription: Flow.Subscription = null
      private var count = 0L
      private var quantity = 0L
      def onSubscribe(s: Flow.Subscription): Unit =
        subscription = s
        s.request(1)
      def onNext(l: Line): Unit =
        count += 1
        quantity += l.quantity
        subscription.request(1)
      def onError(e: Throwable): Unit = done.failure(e)
      def onComplete(): Unit = done.success(s"$count $quantity"))
    done.future

  /** `n` lines, produced one by one as they are requested. */
  private def generated(n: Int): Flow.Publisher[Line] = subscriber =>
    val next = AtomicLong()
    subscriber.onSubscribe(new Flow.Subscription:
      @volatile private var cancelled = false
      def request(k: Long): Unit = synchronized {
        var left = k
        while left > 0 && !cancelled && next.get <= n do
          val i = next.getAndIncrement().toInt
          if i == n then subscriber.onComplete() else subscriber.onNext(line(i))
          left -= 1
      }
      def cancel(): Unit = cancelled = true)

  private val totalArray =
    endpoint.post.in("lines" / "array").in(jsonArrayBody[Line]).out(stringBody).serverLogicSuccess(total)
  private val totalLines =
    endpoint.post.in("lines" / "ndjson").in(ndjsonBody[Line]).out(stringBody).serverLogicSuccess(total)
  private val checkedLines =
    given Schema[Line] = TestModel.validatedLine
    endpoint.post.in("lines" / "checked").in(jsonArrayBody[Line]).out(stringBody).serverLogicSuccess(total)
  private val produce =
    endpoint.get.in("lines" / path[Int]("n")).out(jsonArrayBody[Line]).serverLogicSuccess(n =>
      Future.successful(generated(n))
    )
  private val produceLines =
    endpoint.get.in("ndjson" / path[Int]("n")).out(ndjsonBody[Line]).serverLogicSuccess(n =>
      Future.successful(generated(n))
    )
  private val echo =
    endpoint.post.in("lines" / "echo").in(ndjsonBody[Line]).out(ndjsonBody[Line]).serverLogicSuccess(Future.successful)

  private val json = "Content-Type" -> "application/json"
  private val ndjson = "Content-Type" -> "application/x-ndjson"

  private def expectedTotal(n: Int): String = s"$n ${(0 until n).map(1 + _ % 9).sum}"

  test("a JSON array body is read element by element, whole and in order, in chunks cut anywhere"):
    val n = 200000
    val body = writeToArray((0 until n).map(line).toList)(using listOfLines)
    withServer(totalArray) { t =>
      assertEquals(t.post("/lines/array", body, json).body, expectedTotal(n))
      // Sent chunked, in pieces that cut values, strings and numbers anywhere.
      val c = t.raw()
      try
        c.send("POST /lines/array HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
        c.send("Transfer-Encoding: chunked\r\n\r\n")
        body.grouped(997).foreach(c.sendChunk)
        c.send("0\r\n\r\n")
        assertEquals(c.readResponse().body, expectedTotal(n))
      finally c.close()
      // Cut inside an element, then closed: the element is not valid JSON.
      val cut = body.take(100000) ++ "]".getBytes
      assertEquals(t.post("/lines/array", cut, json).status, 400)
    }

  test("newline-delimited JSON is read value by value, and written back as it is read"):
    val n = 50000
    val body = (0 until n).map(i => new String(writeToArray(line(i)), StandardCharsets.UTF_8)).mkString("", "\n", "\n")
    withServer(totalLines, echo) { t =>
      assertEquals(t.post("/lines/ndjson", body, ndjson).body, expectedTotal(n))
      val r = t.post("/lines/echo", body, ndjson)
      assertEquals(r.header("content-type"), Some("application/x-ndjson"))
      assertEquals(r.body, body)
    }

  test("a stream of values is written as a JSON array or as lines, produced as the client reads"):
    withServer(produce, produceLines) { t =>
      val r = t.get("/lines/100000")
      assertEquals(r.header("content-type"), Some("application/json"))
      assertEquals(readFromArray(r.bytes)(using listOfLines), (0 until 100000).map(line).toList)
      assertEquals(t.get("/lines/0").body, "[]")
      assertEquals(
        t.get("/ndjson/3").body.linesIterator.map(l => readFromArray[Line](l.getBytes)).toList,
        (0 until 3).map(line).toList
      )
    }

  test("a bad element of a JSON stream is a 400 that names it; a wrong Content-Type a 415"):
    withServer(totalArray, checkedLines) { t =>
      val bad =
        t.post("/lines/array", """[{"sku":"a","quantity":1,"price":1},{"sku":"b","quantity":"x","price":1}]""", json)
      assertEquals(bad.status, 400)
      assert(bad.problem.detail.contains("element 1"), bad.problem.detail)
      assert(bad.problem.detail.contains("element 1 of the stream is malformed in quantity: "), bad.problem.detail)
      assert(bad.problem.detail.endsWith(" at byte 22"), bad.problem.detail)
      val invalid =
        t.post("/lines/checked", """[{"sku":"a","quantity":1,"price":1},{"sku":"b","quantity":0,"price":1}]""", json)
      assertEquals(invalid.status, 400)
      assert(invalid.problem.detail.contains("element 1"), invalid.problem.detail)
      assertEquals(t.post("/lines/array", """{"sku":"a"}""", json).status, 400)
      assertEquals(t.post("/lines/array", """[{"sku":"a","quantity":1,"price":1}""", json).status, 400)
      assertEquals(t.post("/lines/array", "[]", "Content-Type" -> "text/plain").status, 415)
      assertEquals(t.post("/lines/array", "[]", json).body, "0 0")
    }
