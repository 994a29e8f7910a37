package rapier.server.files

import rapier.*
import rapier.model.{HeaderNames, MediaType, PercentEncoding, StatusCode}
import rapier.server.compression.AcceptEncoding
import rapier.server.internal.RequestTarget
import rapier.server.{Monad, Problem, ProblemRenderer, ServerEndpoint, serverLogic}

import java.nio.charset.StandardCharsets
import java.nio.file.Path

/** What a static service answers a GET it can serve with. */
private[files] sealed trait StaticAnswer

private[files] object StaticAnswer:
  final case class Found(
      contentType: String,
      etag: String,
      lastModified: Option[String],
      cacheControl: Option[String],
      vary: Option[String],
      contentEncoding: Option[String],
      file: Path
  ) extends StaticAnswer

  final case class NotModified(
      etag: String,
      lastModified: Option[String],
      cacheControl: Option[String],
      vary: Option[String]
  ) extends StaticAnswer

  final case class Moved(location: String) extends StaticAnswer

/** A 404 or 412, its body an `application/problem+json` document. */
private[files] final case class StaticProblem(status: StatusCode, json: String)

/** The endpoint of one [[StaticFiles]] value, and the decisions it takes for each request. */
private[files] final class StaticService(config: StaticFiles, prefix: List[String]):
  private val source: FileSource = config.root match
    case StaticFiles.Root.Directory(path) => DirectorySource(path, config.linksLeavingRoot)
    case StaticFiles.Root.Resources(root, loader) => ResourceSource(root, loader)

  private val fallback: List[String] | Null = config.fallback match
    case Some(file) => file.split('/').filter(_.nonEmpty).toList
    case None => null

  def serverEndpoint[F[_]](using m: Monad[F]): ServerEndpoint[F] =
    StaticService.endpoint(prefix, config).serverLogic[F]((segments, asked) => m.unit(answer(segments, asked)))

  /** The answer to a GET of `segments` below the prefix. */
  def answer(segments: List[String], asked: Conditions): Either[StaticProblem, StaticAnswer] =
    // The segments of `/assets` and `/assets/` are both empty: the request's path tells them apart.
    val slashed = asked.slashed
    val named = if segments.lastOption.contains("") then segments.init else segments
    if !config.hiddenFiles && named.exists(_.startsWith(".")) then orFallback(asked)
    else
      source.lookup(named) match
        case file: Entry.File =>
          if slashed then Left(StaticService.notFound) else serve(named, file, asked)
        case Entry.Directory =>
          config.index match
            case None => orFallback(asked)
            case Some(index) if slashed =>
              source.lookup(named :+ index) match
                case file: Entry.File => serve(named :+ index, file, asked)
                case _ => orFallback(asked)
            case Some(_) =>
              val last = named.lastOption.getOrElse(prefix.lastOption.getOrElse(""))
              Right(StaticAnswer.Moved(PercentEncoding.encodePathSegment(last) + "/"))
        case Entry.Missing => orFallback(asked)

  private def orFallback(asked: Conditions): Either[StaticProblem, StaticAnswer] =
    if fallback == null then Left(StaticService.notFound)
    else
      source.lookup(fallback.nn) match
        case file: Entry.File => serve(fallback.nn, file, asked)
        case _ => Left(StaticService.notFound)

  /** The file at `segments`, or its precompressed sibling, under the request's conditions. */
  private def serve(segments: List[String], file: Entry.File, asked: Conditions): Either[StaticProblem, StaticAnswer] =
    val contentType = config.contentTypes.getOrElse(ContentTypes.extension(segments.last), ContentTypes.Unknown)
    var sent = file
    var coding: Option[String] = None
    var vary: Option[String] = None
    if config.precompressed then
      val siblings = StaticService.Codings.flatMap { (name, suffix) =>
        source.lookup(segments.init :+ (segments.last + suffix)) match
          case sibling: Entry.File => Some((name, sibling))
          case _ => None
      }
      if siblings.nonEmpty then
        vary = Some(HeaderNames.AcceptEncoding)
        val accepted = AcceptEncoding.parse(asked.acceptEncoding)
        val best =
          siblings.filter((name, _) => accepted.weight(name) > 0).maxByOption((name, _) => accepted.weight(name))
        best.foreach { (name, sibling) =>
          sent = sibling
          coding = Some(name)
        }
    // A sibling's tag names the coding too: a cache must never take one representation's bytes for another's.
    val etag = coding.fold(sent.etag)(c => sent.etag.dropRight(1) + "-" + c + "\"")
    val lastModified = Option(sent.lastModified)
    Preconditions.evaluate(asked, etag, sent.modified) match
      case Preconditions.Outcome.Failed => Left(StaticService.preconditionFailed)
      case Preconditions.Outcome.NotModified =>
        Right(StaticAnswer.NotModified(etag, lastModified, config.cacheControl, vary))
      case Preconditions.Outcome.Proceed =>
        Right(StaticAnswer.Found(contentType, etag, lastModified, config.cacheControl, vary, coding, sent.path))

private[files] object StaticService:
  /** The precompressed siblings looked for, the preferred first when `Accept-Encoding` weighs them the same. */
  private val Codings = List("br" -> ".br", "gzip" -> ".gz")

  private def problem(status: StatusCode, detail: String): StaticProblem =
    val body = ProblemRenderer.json(Problem(status, detail)).body
    StaticProblem(status, if body == null then "" else String(body.nn, StandardCharsets.UTF_8))

  val notFound: StaticProblem = problem(StatusCode.NotFound, "No file is served at this path.")
  val preconditionFailed: StaticProblem =
    problem(StatusCode.PreconditionFailed, "The file does not meet the request's If-Match or If-Unmodified-Since.")

  private val conditions: EndpointInput[Conditions] = extractFromRequest { r =>
    val uri = r.uri
    val end = RequestTarget.pathEnd(uri, math.max(0, RequestTarget.pathStart(uri)))
    Conditions(
      end > 0 && uri.charAt(end - 1) == '/',
      r.headerValues(HeaderNames.IfMatch),
      r.headerValues(HeaderNames.IfNoneMatch),
      r.header(HeaderNames.IfModifiedSince).orNull,
      r.header(HeaderNames.IfUnmodifiedSince).orNull,
      r.headerValues(HeaderNames.AcceptEncoding)
    )
  }

  private def problemOutput(status: StatusCode): EndpointOutput[StaticProblem] =
    header(HeaderNames.ContentType, ProblemRenderer.ProblemJson)
      .and(problemText.description(if status == StatusCode.NotFound then "No file at this path"
      else "A condition failed"))
      .map(StaticProblem(status, _))(_.json)

  // Documented as the server's problem details; sent without a charset, as they are.
  private val problemText = EndpointIO.Body(
    RawBodyType.StringBody(StandardCharsets.UTF_8),
    summon[Codec[String, String]].mediaType(MediaType("application", "problem+json"))
  )

  private val validators =
    header[String](HeaderNames.ETag)
      .and(header[Option[String]](HeaderNames.LastModified))
      .and(header[Option[String]](HeaderNames.CacheControl))
      .and(header[Option[String]](HeaderNames.Vary))

  private val output: EndpointOutput[StaticAnswer] = oneOf[StaticAnswer](
    oneOfVariant(
      StatusCode.Ok,
      header[String](HeaderNames.ContentType)
        .and(validators)
        .and(header[Option[String]](HeaderNames.ContentEncoding))
        .and(fileBody.description("The file's bytes, or one range of them (206)"))
        .mapTo[StaticAnswer.Found]
    ),
    oneOfVariant(StatusCode.NotModified, validators.mapTo[StaticAnswer.NotModified]),
    oneOfVariant(StatusCode.MovedPermanently, header[String](HeaderNames.Location).mapTo[StaticAnswer.Moved])
  )

  private val errors: EndpointOutput[StaticProblem] = oneOf[StaticProblem](
    oneOfVariantValueMatcher(StatusCode.NotFound, problemOutput(StatusCode.NotFound)) {
      case p: StaticProblem => p.status == StatusCode.NotFound
    },
    oneOfVariantValueMatcher(StatusCode.PreconditionFailed, problemOutput(StatusCode.PreconditionFailed)) {
      case p: StaticProblem => p.status == StatusCode.PreconditionFailed
    }
  )

  def endpoint(prefix: List[String], config: StaticFiles) =
    val at = prefix.foldLeft(rapier.endpoint.get)((e, segment) => e.in(segment))
    at.in(paths.description("The file's path below the prefix"))
      .in(conditions)
      .out(output)
      .errorOut(errors)
      .summary("Static files")
      .description(config.root match
        case StaticFiles.Root.Directory(path) => s"The files below the directory ${path.getFileName}."
        case StaticFiles.Root.Resources(root, _) => s"The resources below $root on the class path.")
