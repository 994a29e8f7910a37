package rapier.testkit

import io.prometheus.metrics.model.registry.PrometheusRegistry
import rapier.*
import rapier.metrics.prometheus.PrometheusMetrics
import rapier.server.*

import scala.concurrent.Future

/**
 * Prometheus metrics (`rapier.metrics.prometheus`): requests counted and timed by method, route template and status,
 * those in progress, body sizes, served in the text format; labels from templates, never from raw paths or methods.
 */
trait MetricsTests extends ServerTestSupport:
  private def withMetrics[T](endpoints: ServerEndpoint[Future]*)(body: (Target, PrometheusMetrics) => T): T =
    val metrics = PrometheusMetrics(PrometheusRegistry())
    val options = ServerOptions.default.withoutRequestLog.withInterceptor(metrics.interceptor)
    withServerConfig(TestServerConfig(serverOptions = options))((endpoints :+ metrics.endpoint[Future]())*) { t =>
      body(t, metrics)
    }

  /** The value of the sample `name{labels}` in `text`, if there is one. */
  private def sample(text: String, name: String, labels: String): Option[Double] =
    text.linesIterator.collectFirst {
      case line if line.startsWith(s"$name{$labels}") => line.substring(line.lastIndexOf(' ') + 1).toDouble
    }

  test("metrics: requests counted and timed by method, route template and status; labels never from raw paths"):
    val book = endpoint.get.in("m" / "books" / path[Int]("id")).out(stringBody).serverLogicSuccess[Future] { id =>
      Future.successful(s"book $id")
    }
    val failing = endpoint.get.in("m" / "fail").out(stringBody).serverLogicSuccess[Future](_ => sys.error("bug"))
    val echo = endpoint.post.in("m" / "echo").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)
    withMetrics(book, failing, echo) { (t, _) =>
      for id <- 1 to 3 do assertEquals(t.get(s"/m/books/$id").status, 200)
      assertEquals(t.get("/m/nothing/here").status, 404)
      assertEquals(t.get("/m/fail").status, 500)
      assertEquals(t.post("/m/echo", "hello").body, "hello")
      val scraped = t.get("/metrics")
      assert(scraped.header("Content-Type").exists(_.startsWith("text/plain; version=0.0.4")), scraped.headers)
      val text = scraped.body
      def requests(labels: String) = sample(text, "http_server_requests_total", labels)
      assertEquals(requests("""method="GET",route="/m/books/{id}",status="200""""), Some(3.0))
      assertEquals(requests("""method="GET",route="unmatched",status="404""""), Some(1.0))
      assertEquals(requests("""method="GET",route="/m/fail",status="500""""), Some(1.0))
      assertEquals(
        sample(
          text,
          "http_server_request_duration_seconds_count",
          """method="GET",route="/m/books/{id}",status="200""""
        ),
        Some(3.0)
      )
      assertEquals(sample(text, "http_server_active_requests", """method="GET",route="/m/books/{id}""""), Some(0.0))
      assertEquals(
        sample(text, "http_server_request_body_size_bytes_sum", """method="POST",route="/m/echo""""),
        Some(5.0)
      )
      assertEquals(
        sample(text, "http_server_response_body_size_bytes_sum", """method="POST",route="/m/echo""""),
        Some(5.0)
      )
      assert(!text.contains("/m/books/1") && !text.contains("/m/nothing"), text)
    }

  test("metrics: a method outside RFC 9110's is labelled _OTHER"):
    val any = endpoint.in("m" / "any").out(stringBody).serverLogicSuccess[Future](_ => Future.successful("any"))
    withMetrics(any) { (t, _) =>
      assertEquals(t.send("PURGE", "/m/any", null).body, "any")
      val text = t.get("/metrics").body
      assertEquals(
        sample(text, "http_server_requests_total", """method="_OTHER",route="/m/any",status="200""""),
        Some(1.0)
      )
      assert(!text.contains("PURGE"), text)
    }

  test("metrics: a request in progress is counted as active until it is answered"):
    val release = scala.concurrent.Promise[String]()
    val slow = endpoint.get.in("m" / "slow").out(stringBody).serverLogicSuccess[Future](_ => release.future)
    withMetrics(slow) { (t, metrics) =>
      val pending = Future(t.get("/m/slow").body)(using scala.concurrent.ExecutionContext.global)
      def active =
        sample(String(metrics.scrape(), "UTF-8"), "http_server_active_requests", """method="GET",route="/m/slow"""")
      eventually(active.contains(1.0), "the request is counted as active")
      release.success("done")
      assertEquals(scala.concurrent.Await.result(pending, scala.concurrent.duration.Duration(10, "s")), "done")
      eventually(active.contains(0.0), "the request is no longer active")
    }

  test("metrics: a request whose client goes away is counted once and is no longer active"):
    val release = scala.concurrent.Promise[String]()
    val slow = endpoint.get.in("m" / "gone").out(stringBody).serverLogicSuccess[Future](_ => release.future)
    withMetrics(slow) { (t, metrics) =>
      def text = String(metrics.scrape(), "UTF-8")
      def active = sample(text, "http_server_active_requests", """method="GET",route="/m/gone"""")
      // Whatever status it is counted under: 499 where the logic is stopped, its answer where it runs on
      def counted = text.linesIterator
        .filter(_.startsWith("""http_server_requests_total{method="GET",route="/m/gone","""))
        .map(line => line.substring(line.lastIndexOf(' ') + 1).toDouble)
        .sum
      val raw = t.raw()
      raw.send("GET /m/gone HTTP/1.1\r\nHost: x\r\n\r\n")
      eventually(active.contains(1.0), "the request is counted as active")
      raw.close()
      // A stopped logic (an effect's fiber, direct style's thread) ends the request now; a `Future` runs on
      val deadline = System.nanoTime + 2_000_000_000L
      while !active.contains(0.0) && System.nanoTime < deadline do Thread.sleep(20)
      release.success("done")
      eventually(active.contains(0.0) && counted == 1.0, s"the request is counted once and no longer active:\n$text")
    }
