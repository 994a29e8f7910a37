package rapier.server.files

import rapier.server.{Monad, ServerEndpoint}

import java.nio.file.Path

/**
 * A static file service: the files below a directory, or the resources below a class path root, served by one GET
 * endpoint under a path prefix (`staticFiles("assets", dir)` answers `GET /assets/app.js`, and HEAD).
 *
 * Each file goes out zero-copy where the backend can, with its `Content-Type` by extension, a strong `ETag` and
 * `Last-Modified`; `If-None-Match` and `If-Modified-Since` get 304s, `If-Match` and `If-Unmodified-Since` 412s, and
 * `Range` (with `If-Range`) a 206 of one range, as `fileBody` has them. A directory asked for with its trailing slash
 * is its index file; without it, a 301 to the slashed path (so the index's relative links work).
 *
 * Nothing outside the root is ever served: the router refuses `..`, `.`, encoded slashes, backslashes and control
 * characters in any encoding (400); a link leading out of the root, a hidden file (`.env`, `.git/`), something other
 * than a readable regular file, or a name the file system would read differently is not found (404).
 *
 * @param index
 *   the file a directory is served as; None: a directory is not found
 * @param fallback
 *   a file (path below the root) served, 200, for every path that names nothing: a single-page app's `index.html`
 * @param cacheControl
 *   the `Cache-Control` of every answer (`public, max-age=31536000, immutable` for fingerprinted assets)
 * @param precompressed
 *   whether a `.br` or `.gz` sibling (`app.js.br`) is sent instead of the file when `Accept-Encoding` allows it, with
 *   `Content-Encoding`, its own tag and `Vary: Accept-Encoding`
 * @param linksLeavingRoot
 *   whether a symbolic link inside the root may lead out of it (for a root made of links, as some deployments are)
 * @param hiddenFiles
 *   whether names starting with `.` are served (`.well-known/` needs it)
 * @param contentTypes
 *   `Content-Type` by lower-case extension; others are `application/octet-stream`
 */
final case class StaticFiles private (
    private[files] val root: StaticFiles.Root,
    index: Option[String] = Some("index.html"),
    fallback: Option[String] = None,
    cacheControl: Option[String] = None,
    precompressed: Boolean = false,
    linksLeavingRoot: Boolean = false,
    hiddenFiles: Boolean = false,
    contentTypes: Map[String, String] = ContentTypes.default
):
  def withIndex(fileName: String): StaticFiles = copy(index = Some(fileName))
  def withoutIndex: StaticFiles = copy(index = None)
  def withFallback(file: String): StaticFiles = copy(fallback = Some(file))
  def withCacheControl(value: String): StaticFiles = copy(cacheControl = Some(value))
  def withPrecompressed: StaticFiles = copy(precompressed = true)
  def withLinksLeavingRoot: StaticFiles = copy(linksLeavingRoot = true)
  def withHiddenFiles: StaticFiles = copy(hiddenFiles = true)
  def withContentType(extension: String, contentType: String): StaticFiles =
    copy(contentTypes = contentTypes + (extension.toLowerCase(java.util.Locale.ROOT) -> contentType))

  /**
   * The endpoint serving these files at `prefix` (`"assets"`, `"static/v1"`, or `""` for the whole server, below its
   * other endpoints). Checks the root now: a directory that doesn't exist fails here, not at the first request.
   */
  def endpoint[F[_]](prefix: String)(using m: Monad[F]): ServerEndpoint[F] =
    StaticService(this, prefix.split('/').filter(_.nonEmpty).toList).serverEndpoint[F]

object StaticFiles:
  /** The files below `root`, a directory. */
  def directory(root: Path): StaticFiles = StaticFiles(Root.Directory(root))

  /** The resources below `root` (`"public"`, `"META-INF/resources"`) on the class path of `loader`. */
  def resources(root: String, loader: ClassLoader = defaultLoader): StaticFiles =
    StaticFiles(Root.Resources(root, loader))

  private def defaultLoader: ClassLoader =
    Option(Thread.currentThread.getContextClassLoader).getOrElse(classOf[StaticFiles].getClassLoader)

  private[files] enum Root:
    case Directory(path: Path)
    case Resources(root: String, loader: ClassLoader)

/** The files below `directory`, served by GET at `prefix`: see [[StaticFiles]] for the options. */
def staticFiles[F[_]: Monad](prefix: String, directory: Path): ServerEndpoint[F] =
  StaticFiles.directory(directory).endpoint[F](prefix)

/** The resources below `root` on the class path, served by GET at `prefix`: see [[StaticFiles]] for the options. */
def staticResources[F[_]: Monad](prefix: String, root: String): ServerEndpoint[F] =
  StaticFiles.resources(root).endpoint[F](prefix)
