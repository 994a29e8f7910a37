package rapier.testkit

import rapier.*
import rapier.server.*

import java.nio.charset.StandardCharsets
import scala.concurrent.Future

/** Request bodies: text, bytes, forms, sizes and framings, limits. */
trait BodyTests extends ServerTestSupport:
  private val echoText = endpoint.post.in("text").in(stringBody).out(stringBody).serverLogicSuccess(Future.successful)
  private val echoBytes =
    endpoint.post.in("bytes").in(byteArrayBody).out(byteArrayBody).serverLogicSuccess(Future.successful)
  private val digest =
    endpoint.post.in("digest").in(byteArrayBody).out(stringBody).serverLogicSuccess(b =>
      Future.successful(Sha256.of(b))
    )

  test(anyStyle("a text body round-trips, unicode included")):
    withServer(echoText) { t =>
      val r = t.post("/text", "zażółć gęślą jaźń ✓ 😀")
      assertEquals(r.body, "zażółć gęślą jaźń ✓ 😀")
      assertEquals(r.header("Content-Type"), Some("text/plain; charset=UTF-8"))
    }

  test(anyStyle("a text body is decoded in the charset its Content-Type declares")):
    withServer(echoText) { t =>
      val latin1 = "café".getBytes(StandardCharsets.ISO_8859_1)
      assertEquals(t.post("/text", latin1, "Content-Type" -> "text/plain; charset=ISO-8859-1").body, "café")
      assertEquals(t.post("/text", latin1, "Content-Type" -> "text/plain; charset=\"iso-8859-1\"").body, "café")
    }

  test(
    anyStyle("a text body in a charset the server can't read is a 415, and only a charset parameter names the charset")
  ):
    withServer(echoText) { t =>
      val latin1 = "café".getBytes(StandardCharsets.ISO_8859_1)
      val unknown = t.post("/text", latin1, "Content-Type" -> "text/plain; charset=x-no-such-charset")
      assertEquals(unknown.status, 415)
      assertEquals(
        unknown.problem.detail,
        "Invalid request: the Content-Type header is invalid: expected a charset the server can read"
      )
      // `xcharset` is another parameter: the body is read in the endpoint's UTF-8, where a lone é is not valid
      assertEquals(t.post("/text", latin1, "Content-Type" -> "text/plain; xcharset=ISO-8859-1").status, 400)
      // a `;` and a `charset=` inside a quoted value belong to that value
      val quoted = t.post("/text", latin1, "Content-Type" -> "text/plain; note=\"a;charset=x\"; Charset=ISO-8859-1")
      assertEquals((quoted.status, quoted.body), (200, "café"))
    }

  test(anyStyle("a text body that is not valid in its charset is a 400")):
    withServer(echoText) { t =>
      val r = t.post("/text", Array[Byte](0x61, 0xc3.toByte, 0x28), "Content-Type" -> "text/plain; charset=UTF-8")
      assertEquals(r.status, 400)
      assertEquals(r.problem.detail, "Invalid request: the body is invalid: expected text in the declared charset")
      // A replacement character sent as such is valid text
      val valid =
        t.post("/text", "a\uFFFDb".getBytes(StandardCharsets.UTF_8), "Content-Type" -> "text/plain; charset=UTF-8")
      assertEquals((valid.status, valid.body), (200, "a\uFFFDb"))
    }

  test(anyStyle("an empty body is an empty string")):
    withServer(echoText) { t =>
      val r = t.post("/text", "")
      assertEquals(r.status, 200)
      assertEquals(r.body, "")
      assertEquals(r.header("Content-Length"), Some("0"))
    }

  test(anyStyle("a binary body round-trips byte for byte")):
    withServer(echoBytes) { t =>
      val all = Array.tabulate[Byte](256 * 4)(i => i.toByte)
      val r = t.post("/bytes", all)
      assert(java.util.Arrays.equals(r.bytes, all))
      assertEquals(r.header("Content-Type"), Some("application/octet-stream"))
    }

  test(anyStyle("a 5 MB body arrives whole")):
    withServer(digest) { t =>
      val big = Array.tabulate[Byte](5 * 1024 * 1024)(i => (i * 31 + i / 7).toByte)
      assertEquals(t.post("/digest", big).body, Sha256.of(big))
    }

  test(anyStyle("a 5 MB text body round-trips")):
    withServer(echoText) { t =>
      val big = "0123456789abcdefghijklmnopqrstuvwxyzżółć" * (5 * 1024 * 1024 / 44)
      assertEquals(t.post("/text", big).body, big)
    }

  test(anyStyle("a chunked body is assembled from its chunks")):
    withServer(digest) { t =>
      val c = t.raw()
      try
        c.send("POST /digest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        c.send("5\r\nhello\r\n")
        c.send("1;ext=1\r\n \r\n")
        c.send("5\r\nworld\r\n0\r\n\r\n")
        val r = c.readResponse()
        assertEquals(r.body, Sha256.of("hello world".getBytes(StandardCharsets.US_ASCII)))
      finally c.close()
    }

  test(anyStyle("a body over the limit is refused with 413 before it is read")):
    withServerConfig(TestServerConfig(maxBodySize = 1000))(echoBytes) { t =>
      val c = t.raw()
      try
        // Only the head is sent: the answer must not wait for the body.
        c.send("POST /bytes HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
        val r = c.readResponse()
        assertEquals(r.status, 413)
        assertEquals(r.header("Connection"), Some("close"))
        assert(c.closedByServer())
      finally c.close()
      assertEquals(t.post("/bytes", new Array[Byte](1000)).status, 200)
    }

  test(anyStyle("an expectation of 100-continue gets 100 Continue, unless the body is too large")):
    withServerConfig(TestServerConfig(maxBodySize = 100))(echoText) { t =>
      val c = t.raw()
      try
        c.send("POST /text HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        assertEquals(c.readResponse().status, 100)
        c.send("hello")
        assertEquals(c.readResponse().body, "hello")
      finally c.close()
      val tooBig =
        t.rawExchange("POST /text HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\nExpect: 100-continue\r\n\r\n")
      assertEquals(tooBig.status, 413)
    }

  test(anyStyle("an unsupported expectation is a 417")):
    withServer(echoText) { t =>
      assertEquals(
        t.rawExchange("POST /text HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: magic\r\n\r\nx").status,
        417
      )
    }

  test(anyStyle("a chunked body that crosses the limit is a 413")):
    withServerConfig(TestServerConfig(maxBodySize = 100))(digest) { t =>
      val c = t.raw()
      try
        c.send("POST /digest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        c.send("40\r\n" + "a" * 64 + "\r\n")
        c.send("40\r\n" + "b" * 64 + "\r\n0\r\n\r\n")
        assertEquals(c.readResponse().status, 413)
        assert(c.closedByServer())
      finally c.close()
    }

  test(
    anyStyle("a chunked upload of 1 GiB against a 1 MiB limit is a 413, read by the client, with the body held bounded")
  ):
    val limit = 1024 * 1024
    withServerConfig(TestServerConfig(maxBodySize = limit))(digest) { t =>
      // The server's own count of what it buffers for bodies, sampled as the upload goes on: what the whole JVM's heap
      // shows would measure the collector's timing as much as the server.
      var most = 0L
      val upload = uploadGiB(t, "/digest") { most = most.max(t.bodyBytesHeld) }
      val r = upload.response
      assertEquals(r.status, 413)
      assertEquals(r.problem.detail, "The body is larger than the limit of 1048576 bytes.")
      assert(upload.readOn, upload.toString)
      // Never more than the limit: a body is refused before a chunk would take it over.
      assert(most <= limit, s"the server held $most bytes of body while ${upload.sent} bytes were sent")
    }

  test(anyStyle("a body's bytes are counted while it is read and released once it is handed over or refused")):
    withServerConfig(TestServerConfig(maxBodySize = 1024))(digest) { t =>
      val c = t.raw()
      try
        c.send("POST /digest HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + "a" * 10)
        eventually(t.bodyBytesHeld > 0, "the partly received body is counted")
        c.send("a" * 990)
        assertEquals(c.readResponse().status, 200)
        eventually(t.bodyBytesHeld == 0, "the body handed over is no longer counted")
        c.send("POST /digest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        c.send("300\r\n" + "b" * 768 + "\r\n")
        eventually(t.bodyBytesHeld > 0, "a chunked body is counted as it arrives")
        c.send("300\r\n" + "b" * 768 + "\r\n0\r\n\r\n")
        assertEquals(c.readResponse().status, 413)
        eventually(t.bodyBytesHeld == 0, "a refused body is no longer counted")
      finally c.close()
    }

  test(anyStyle("a form body decodes into fields")):
    val e = endpoint.post.in("form").in(formBody[Map[String, String]]).out(stringBody)
    withServer(e.serverLogicSuccess(m => Future.successful(m.toList.sorted.mkString(";")))) { t =>
      val form = "Content-Type" -> "application/x-www-form-urlencoded"
      assertEquals(t.post("/form", "name=Ada+Lovelace&lang=%E2%9C%93", form).body, "(lang,✓);(name,Ada Lovelace)")
      assertEquals(t.post("/form", "a=1&a=2", form).status, 400)
      val wrongType = t.post("/form", "a=1", "Content-Type" -> "text/plain")
      assertEquals(wrongType.status, 415)
      assertEquals(
        wrongType.problem.detail,
        "Invalid request: the Content-Type header does not match: expected application/x-www-form-urlencoded"
      )
    }

  test(anyStyle("a body decoded into a type fails with a 400 naming the body")):
    val e = endpoint.post.in("n").in(plainBody[Int]).out(stringBody)
    withServer(e.serverLogicSuccess(n => Future.successful((n * 2).toString))) { t =>
      assertEquals(t.post("/n", "21").body, "42")
      val r = t.post("/n", "twenty")
      assertEquals(r.status, 400)
      assert(r.problem.detail.startsWith("Invalid request: the body is invalid: expected an integer"), r.body)
    }

  test(anyStyle("a body sent to an endpoint that reads none is ignored, and the connection stays usable")):
    val e = endpoint.post.in("nobody").out(stringBody).serverLogicSuccess(_ => Future.successful("ok"))
    withServer(e) { t =>
      val c = t.raw()
      try
        c.send("POST /nobody HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd")
        assertEquals(c.readResponse().body, "ok")
        c.send("POST /nobody HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        assertEquals(c.readResponse().body, "ok")
      finally c.close()
    }
