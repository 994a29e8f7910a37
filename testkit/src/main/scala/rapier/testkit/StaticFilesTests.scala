package rapier.testkit

import rapier.*
import rapier.server.*
import rapier.server.files.{StaticFiles, staticFiles, staticResources}

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.util.zip.GZIPOutputStream
import scala.concurrent.Future

/**
 * Static files and resources (`rapier.server.files`): types, validators and their conditions, ranges, directories
 * and their index, a single-page app's fallback, precompressed siblings, and nothing outside the root, whatever the
 * request's spelling.
 */
trait StaticFilesTests extends ServerTestSupport:
  private val secret = "TOP SECRET, never served"
  private val page = "<!doctype html><title>home</title>" + ("<p>static</p>" * 200)

  /** A root with files, a directory, hidden files and links out of it; the secret beside it. */
  private def withRoot[T](body: Path => T): T =
    val parent = Files.createTempDirectory("rapier-static-")
    val root = Files.createDirectory(parent.resolve("root"))
    Files.writeString(parent.resolve("secret.txt"), secret)
    Files.writeString(root.resolve("index.html"), page)
    Files.writeString(root.resolve("app.js"), "console.log('app')")
    Files.write(root.resolve("app.js.gz"), gzip("console.log('app')".getBytes(UTF_8)))
    Files.writeString(root.resolve("app.js.br"), "brotli bytes")
    Files.write(root.resolve("blob.bin"), Array.tabulate[Byte](1000)(_.toByte))
    Files.writeString(root.resolve("no-extension"), "plain")
    Files.createDirectories(root.resolve("docs/empty"))
    Files.writeString(root.resolve("docs/index.html"), "<p>docs</p>")
    Files.writeString(root.resolve(".env"), secret)
    Files.createDirectory(root.resolve(".git"))
    Files.writeString(root.resolve(".git/config"), secret)
    Files.createSymbolicLink(root.resolve("out"), parent.resolve("secret.txt"))
    Files.createSymbolicLink(root.resolve("up"), parent)
    Files.createSymbolicLink(root.resolve("inside"), root.resolve("app.js"))
    try body(root)
    finally
      Files.walk(parent).sorted(java.util.Comparator.reverseOrder()).forEach(p => Files.deleteIfExists(p))

  private def gzip(bytes: Array[Byte]): Array[Byte] =
    val out = java.io.ByteArrayOutputStream()
    val z = GZIPOutputStream(out)
    z.write(bytes)
    z.close()
    out.toByteArray

  private def serving[T](files: ServerEndpoint[Future]*)(body: Target => T): T = withServer(files*)(body)

  test(anyStyle("static: a file with its type, length, validators and ranges; HEAD without the body")):
    withRoot { root =>
      serving(staticFiles[Future]("s", root)) { t =>
        val r = t.get("/s/index.html")
        assertEquals(r.status, 200)
        assertEquals(r.body, page)
        assertEquals(r.header("Content-Type"), Some("text/html; charset=UTF-8"))
        assertEquals(r.header("Content-Length"), Some(page.length.toString))
        assertEquals(r.header("Accept-Ranges"), Some("bytes"))
        val etag = r.header("ETag").get
        assert(etag.startsWith("\"") && etag.endsWith("\""), etag)
        val modified = r.header("Last-Modified").get
        assertEquals(
          rapier.model.HttpDate.parseOrNull(modified),
          Files.getLastModifiedTime(
            root.resolve("index.html")
          ).toInstant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
        )
        assertEquals(t.get("/s/app.js").header("Content-Type"), Some("text/javascript; charset=UTF-8"))
        assertEquals(t.get("/s/no-extension").header("Content-Type"), Some("application/octet-stream"))
        assertEquals(t.get("/s/inside").body, "console.log('app')", "a link within the root is followed")
        val head = t.send("HEAD", "/s/index.html", null)
        assertEquals((head.status, head.bytes.length), (200, 0))
        assertEquals(head.header("ETag"), Some(etag))
        val part = t.get("/s/blob.bin", "Range" -> "bytes=10-19")
        assertEquals(part.status, 206)
        assertEquals(part.bytes.toList, (10 until 20).map(_.toByte).toList)
        assertEquals(part.header("Content-Range"), Some("bytes 10-19/1000"))
        val blobTag = t.get("/s/blob.bin").header("ETag").get
        assertEquals(t.get("/s/blob.bin", "Range" -> "bytes=0-9", "If-Range" -> blobTag).status, 206)
        assertEquals(t.get("/s/blob.bin", "Range" -> "bytes=0-9", "If-Range" -> "\"stale\"").status, 200)
        assertEquals(t.get("/s/blob.bin", "Range" -> "bytes=0-9", "If-Range" -> s"W/$blobTag").status, 200)
        val blobDate = t.get("/s/blob.bin").header("Last-Modified").get
        assertEquals(t.get("/s/blob.bin", "Range" -> "bytes=0-9", "If-Range" -> blobDate).status, 206)
        assertEquals(t.get("/s/blob.bin", "Range" -> "bytes=5000-").status, 416)
        val missing = t.get("/s/nothing.css")
        assertEquals(missing.status, 404)
        assertEquals(missing.problem.detail, "No file is served at this path.")
      }
    }

  test(anyStyle("static: If-None-Match and If-Modified-Since answer 304; If-Match and If-Unmodified-Since 412")):
    withRoot { root =>
      serving(StaticFiles.directory(root).withCacheControl("public, max-age=60").endpoint[Future]("s")) { t =>
        val first = t.get("/s/app.js")
        val etag = first.header("ETag").get
        val modified = first.header("Last-Modified").get
        assertEquals(first.header("Cache-Control"), Some("public, max-age=60"))
        val cached = t.get("/s/app.js", "If-None-Match" -> s"\"other\", W/$etag")
        assertEquals((cached.status, cached.bytes.length), (304, 0))
        assertEquals(cached.header("ETag"), Some(etag))
        assertEquals(cached.header("Cache-Control"), Some("public, max-age=60"))
        assertEquals(t.get("/s/app.js", "If-None-Match" -> "*").status, 304)
        assertEquals(t.get("/s/app.js", "If-None-Match" -> "\"other\"").status, 200)
        assertEquals(t.get("/s/app.js", "If-Modified-Since" -> modified).status, 304)
        assertEquals(t.get("/s/app.js", "If-Modified-Since" -> "Sat, 01 Jan 2000 00:00:00 GMT").status, 200)
        assertEquals(t.get("/s/app.js", "If-Modified-Since" -> "not a date").status, 200)
        assertEquals(
          t.get("/s/app.js", "If-None-Match" -> "\"other\"", "If-Modified-Since" -> modified).status,
          200,
          "If-None-Match decides when both are sent"
        )
        assertEquals(t.get("/s/app.js", "If-Match" -> etag).status, 200)
        val failed = t.get("/s/app.js", "If-Match" -> "\"other\"")
        assertEquals(failed.status, 412)
        assertEquals(failed.header("Content-Type"), Some("application/problem+json"))
        assertEquals(t.get("/s/app.js", "If-Match" -> s"W/$etag").status, 412, "If-Match compares strongly")
        assertEquals(t.get("/s/app.js", "If-Unmodified-Since" -> "Sat, 01 Jan 2000 00:00:00 GMT").status, 412)
        assertEquals(t.get("/s/app.js", "If-Unmodified-Since" -> modified).status, 200)
      }
    }

  test(
    anyStyle("static: a directory is its index with a trailing slash, a 301 to it without, not found without an index")
  ):
    withRoot { root =>
      serving(staticFiles[Future]("s", root), StaticFiles.directory(root).withoutIndex.endpoint[Future]("bare")) { t =>
        assertEquals(t.get("/s/").body, page)
        assertEquals(t.get("/s/docs/").body, "<p>docs</p>")
        val moved = t.get("/s/docs")
        assertEquals(moved.status, 301)
        assertEquals(moved.header("Location"), Some("docs/"))
        assertEquals(t.get("/s").header("Location"), Some("s/"))
        assertEquals(t.get("/s/docs/empty/").status, 404)
        assertEquals(t.get("/s/app.js/").status, 404)
        assertEquals(t.get("/bare/").status, 404)
        assertEquals(t.get("/bare/docs").status, 404)
        assertEquals(t.get("/bare/app.js").status, 200)
      }
    }

  test(anyStyle("static: a single-page app's fallback at the root, beside the other endpoints")):
    withRoot { root =>
      val api = endpoint.get.in("api" / "hello").out(stringBody).serverLogicSuccess(_ => Future.successful("hi"))
      serving(api, StaticFiles.directory(root).withFallback("index.html").endpoint[Future]("")) { t =>
        assertEquals(t.get("/api/hello").body, "hi")
        assertEquals(t.get("/").body, page)
        assertEquals(t.get("/app.js").body, "console.log('app')")
        val route = t.get("/books/42/edit")
        assertEquals((route.status, route.body), (200, page))
        assertEquals(route.header("Content-Type"), Some("text/html; charset=UTF-8"))
        assertEquals(t.get("/.env").status, 200, "a hidden file is not found, so the app answers")
        assertEquals(t.get("/.env").body, page)
        assertEquals(t.get("/%2e%2e/secret.txt").status, 400)
      }
    }

  test(anyStyle("static: a precompressed sibling when Accept-Encoding allows it, with its coding, tag and Vary")):
    withRoot { root =>
      val files = StaticFiles.directory(root).withPrecompressed.endpoint[Future]("s")
      val options = ServerOptions.default.withoutRequestLog.withCompression()
      withServerConfig(TestServerConfig(serverOptions = options))(files) { t =>
        val plain = t.get("/s/app.js")
        assertEquals(plain.body, "console.log('app')")
        assertEquals(plain.header("Content-Encoding"), None)
        assertEquals(plain.header("Vary"), Some("Accept-Encoding"))
        val gz = t.get("/s/app.js", "Accept-Encoding" -> "gzip")
        assertEquals(gz.header("Content-Encoding"), Some("gzip"))
        assertEquals(gz.header("Content-Type"), Some("text/javascript; charset=UTF-8"))
        val decoded = java.util.zip.GZIPInputStream(java.io.ByteArrayInputStream(gz.bytes)).readAllBytes()
        assertEquals(String(decoded, UTF_8), "console.log('app')", "encoded once, not again by compression")
        assert(gz.header("ETag") != plain.header("ETag"), "each representation has its own tag")
        assertEquals(gz.header("Vary"), Some("Accept-Encoding"))
        val br = t.get("/s/app.js", "Accept-Encoding" -> "gzip, br")
        assertEquals((br.header("Content-Encoding"), br.body), (Some("br"), "brotli bytes"))
        assertEquals(t.get("/s/app.js", "Accept-Encoding" -> "br;q=0.5, gzip").header("Content-Encoding"), Some("gzip"))
        assertEquals(t.get("/s/app.js", "Accept-Encoding" -> "br;q=0, gzip;q=0").header("Content-Encoding"), None)
        val cached = t.get("/s/app.js", "Accept-Encoding" -> "gzip", "If-None-Match" -> gz.header("ETag").get)
        assertEquals(cached.status, 304)
        assertEquals(t.get("/s/index.html", "Accept-Encoding" -> "gzip").header("Vary"), None, "no sibling")
      }
    }

  test(anyStyle("static: resources from the class path, a file's and a directory's")):
    serving(staticResources[Future]("r", "rapier-static"), staticResources[Future]("jar", "org/slf4j")) { t =>
      val r = t.get("/r/hello.txt")
      assertEquals((r.status, r.body), (200, "hello from the class path\n"))
      assertEquals(r.header("Content-Type"), Some("text/plain; charset=UTF-8"))
      assertEquals(t.get("/r/hello.txt", "If-None-Match" -> r.header("ETag").get).status, 304)
      assertEquals(t.get("/r/hello.txt", "Range" -> "bytes=0-4").body, "hello")
      assertEquals(t.get("/r/").body, "<p>resources</p>\n")
      assertEquals(t.get("/r/missing.txt").status, 404)
      assertEquals(t.get("/r/../rapier/testkit/StaticFilesTests.class").status, 400)
      val inJar = classOf[org.slf4j.Logger].getResource("Logger.class")
      assertEquals(inJar.getProtocol, "jar")
      val fromJar = t.get("/jar/Logger.class")
      assertEquals(fromJar.status, 200)
      assertEquals(fromJar.bytes.toList, inJar.openStream().readAllBytes().toList)
      assertEquals(
        t.get("/jar/Logger.class", "Range" -> "bytes=0-3").bytes.toList,
        List(0xca, 0xfe, 0xba, 0xbe).map(_.toByte)
      )
      assertEquals(t.get("/jar/Logger.class", "If-None-Match" -> fromJar.header("ETag").get).status, 304)
      assertEquals(t.get("/jar/event").header("Location"), Some("event/"))
    }

  test(anyStyle("static: no file outside the root, nor a hidden one, whatever the request's spelling")):
    withRoot { root =>
      serving(staticFiles[Future]("s", root), StaticFiles.directory(root).withLinksLeavingRoot.endpoint[Future]("l")) {
        t =>
          assert(StaticTraversals.shapes.size >= 30)
          for target <- StaticTraversals.shapes do
            val r = t.rawExchange(s"GET $target HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            assert(r.status == 400 || r.status == 404, s"$target: $r")
            assert(!r.body.contains(secret), s"$target served the secret: $r")
          assertEquals(t.get("/s/app.js").status, 200, "still serving")
          assertEquals(t.get("/l/out").body, secret, "links may leave the root when allowed")
      }
    }
