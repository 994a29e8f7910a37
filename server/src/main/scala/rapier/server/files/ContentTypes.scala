package rapier.server.files

import java.util.Locale

/**
 * The `Content-Type` a file is served with, by its extension: the web's common formats (text in UTF-8), anything
 * else `application/octet-stream`, which a browser downloads rather than runs.
 */
object ContentTypes:
  val default: Map[String, String] = Map(
    "html" -> "text/html; charset=UTF-8",
    "htm" -> "text/html; charset=UTF-8",
    "css" -> "text/css; charset=UTF-8",
    "js" -> "text/javascript; charset=UTF-8",
    "mjs" -> "text/javascript; charset=UTF-8",
    "txt" -> "text/plain; charset=UTF-8",
    "csv" -> "text/csv; charset=UTF-8",
    "md" -> "text/markdown; charset=UTF-8",
    "xml" -> "application/xml",
    "json" -> "application/json",
    "map" -> "application/json",
    "webmanifest" -> "application/manifest+json",
    "wasm" -> "application/wasm",
    "pdf" -> "application/pdf",
    "zip" -> "application/zip",
    "gz" -> "application/gzip",
    "svg" -> "image/svg+xml",
    "png" -> "image/png",
    "jpg" -> "image/jpeg",
    "jpeg" -> "image/jpeg",
    "gif" -> "image/gif",
    "webp" -> "image/webp",
    "avif" -> "image/avif",
    "ico" -> "image/vnd.microsoft.icon",
    "woff" -> "font/woff",
    "woff2" -> "font/woff2",
    "ttf" -> "font/ttf",
    "otf" -> "font/otf",
    "mp3" -> "audio/mpeg",
    "ogg" -> "audio/ogg",
    "wav" -> "audio/wav",
    "mp4" -> "video/mp4",
    "webm" -> "video/webm"
  )

  val Unknown = "application/octet-stream"

  /** The extension of `fileName` in lower case (`js` of `app.min.JS`), or "" without one. */
  def extension(fileName: String): String =
    val dot = fileName.lastIndexOf('.')
    if dot <= 0 then "" else fileName.substring(dot + 1).toLowerCase(Locale.ROOT)
