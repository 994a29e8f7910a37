package rapier.swaggerui

import rapier.*
import rapier.model.{HeaderNames, StatusCode}
import rapier.openapi.OpenApi
import rapier.server.{Monad, ServerEndpoint, serverLogic, serverLogicSuccess}

import java.nio.charset.StandardCharsets

/**
 * Where Swagger UI is served and what it shows.
 *
 * @param prefix
 *   the path segments the UI is served under: `List("docs")` serves it at `/docs`
 * @param yamlName
 *   the file name of the YAML document under the prefix
 * @param jsonName
 *   the file name of the JSON document under the prefix
 */
final case class SwaggerUiOptions(
    prefix: List[String] = List("docs"),
    yamlName: String = "openapi.yaml",
    jsonName: String = "openapi.json"
):
  require(prefix.nonEmpty && prefix.forall(s => s.nonEmpty && !s.contains('/')), s"not a path prefix: $prefix")
  require(Set(yamlName, jsonName).forall(n => n.nonEmpty && !n.contains('/')), "document names are file names")
  def withPrefix(segments: String*): SwaggerUiOptions = copy(prefix = segments.toList)

/**
 * Swagger UI for a document, as ordinary endpoints for any backend: `GET /docs` redirects to `/docs/index.html`,
 * which loads the document from `/docs/openapi.yaml` (also served as `/docs/openapi.json`) and Swagger UI's static
 * files from the `org.webjars:swagger-ui` jar. Everything is read and rendered once, here: serving a file is a map
 * lookup and the write of bytes already in memory.
 * {{{
 * val docs = OpenApiInterpreter().toOpenApi(books.map(_.endpoint), "Books", "1.0")
 * NettyServer().addEndpoints(books ++ SwaggerUi[Future](docs)).start()
 * }}}
 */
object SwaggerUi:
  /** Swagger UI's files this page loads, with their media types. */
  private val Assets = List(
    "swagger-ui.css" -> "text/css; charset=UTF-8",
    "index.css" -> "text/css; charset=UTF-8",
    "swagger-ui-bundle.js" -> "text/javascript; charset=UTF-8",
    "swagger-ui-standalone-preset.js" -> "text/javascript; charset=UTF-8",
    "oauth2-redirect.html" -> "text/html; charset=UTF-8",
    "oauth2-redirect.js" -> "text/javascript; charset=UTF-8",
    "favicon-16x16.png" -> "image/png",
    "favicon-32x32.png" -> "image/png"
  )

  private val WebjarPath = s"META-INF/resources/webjars/swagger-ui/${WebjarVersion.value}/"

  // Browsers take each file as its Content-Type says, never as what its bytes look like
  private val NoSniff = header(HeaderNames.XContentTypeOptions, "nosniff")

  /**
   * The endpoints serving `document` with Swagger UI.
   * @throws java.lang.IllegalStateException
   *   if the swagger-ui webjar is not on the class path
   */
  def apply[F[_]: Monad](document: OpenApi, options: SwaggerUiOptions = SwaggerUiOptions()): List[ServerEndpoint[F]] =
    val files = Assets.map((name, mediaType) => name -> (mediaType, asset(name))).toMap ++ Map(
      "index.html" -> ("text/html; charset=UTF-8", page(document, options).getBytes(StandardCharsets.UTF_8)),
      options.yamlName -> ("application/yaml", document.toYaml.getBytes(StandardCharsets.UTF_8)),
      options.jsonName -> ("application/json", document.toJson.getBytes(StandardCharsets.UTF_8))
    )
    val prefix = options.prefix.map(pathSegment).reduceLeft[EndpointInput[Unit]](_.and(_))
    // Relative to `/docs`, the target resolves to `/docs/index.html`, also behind a proxy that adds a path.
    val index = s"${options.prefix.last}/index.html"
    val redirect = endpoint.get
      .in(prefix)
      .out(statusCode(StatusCode.Found))
      .out(header(HeaderNames.Location, index))
      .serverLogicSuccess[F](_ => Monad[F].unit(()))
    val file = endpoint.get
      .in(prefix)
      .in(path[String]("file"))
      .errorOut(statusCode(StatusCode.NotFound).and(NoSniff).and(stringBody))
      .out(NoSniff)
      .out(header[String](HeaderNames.ContentType))
      .out(byteArrayBody)
      .serverLogic[F] { name =>
        Monad[F].unit(files.get(name) match
          case Some(found) => Right(found)
          case None => Left(s"No file $name here"))
      }
    List(redirect, file)

  private def asset(name: String): Array[Byte] =
    val in = Option(getClass.getClassLoader.getResourceAsStream(WebjarPath + name)).getOrElse(
      throw IllegalStateException(
        s"Swagger UI's $name is not on the class path: depend on org.webjars:swagger-ui:${WebjarVersion.value}"
      )
    )
    try in.readAllBytes()
    finally in.close()

  /** The page: Swagger UI's styles and scripts, started on the YAML document. */
  private def page(document: OpenApi, options: SwaggerUiOptions): String =
    val title = html(document.info.title)
    val url = js(s"./${options.yamlName}")
    s"""<!DOCTYPE html>
       |<html lang="en">
       |<head>
       |  <meta charset="UTF-8">
       |  <title>$title</title>
       |  <link rel="stylesheet" href="./swagger-ui.css">
       |  <link rel="stylesheet" href="./index.css">
       |  <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
       |  <link rel="icon" type="image/png" href="./favicon-16x16.png" sizes="16x16">
       |</head>
       |<body>
       |  <div id="swagger-ui"></div>
       |  <script src="./swagger-ui-bundle.js"></script>
       |  <script src="./swagger-ui-standalone-preset.js"></script>
       |  <script>
       |    window.onload = () => {
       |      window.ui = SwaggerUIBundle({
       |        url: $url,
       |        dom_id: "#swagger-ui",
       |        deepLinking: true,
       |        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
       |        layout: "StandaloneLayout"
       |      });
       |    };
       |  </script>
       |</body>
       |</html>
       |""".stripMargin

  private def html(s: String): String =
    s.flatMap {
      case '<' => "&lt;"
      case '>' => "&gt;"
      case '&' => "&amp;"
      case '"' => "&quot;"
      case c => c.toString
    }

  /** A JavaScript string literal, safe inside a script element. */
  private def js(s: String): String =
    s.flatMap {
      case '"' => "\\\""
      case '\\' => "\\\\"
      case '<' => "\\u003c"
      case c if c < ' ' => f"\\u${c.toInt}%04x"
      case c => c.toString
    }.mkString("\"", "", "\"")
