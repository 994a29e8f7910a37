package rapier.server.files

import rapier.model.HttpDate

import java.time.Instant

/**
 * A GET's conditions against a file's validators, in RFC 9110 §13.2.2's order: `If-Match`, else
 * `If-Unmodified-Since` (412 when they fail); then `If-None-Match`, else `If-Modified-Since` (304 when the client's
 * copy is current). `If-Range` is the range step's (`FileRanges`).
 */
private[server] object Preconditions:
  enum Outcome:
    case Proceed, NotModified, Failed

  /** What the conditions `asked` decide for a file whose strong tag is `etag`, modified at `modified` (if known). */
  def evaluate(asked: Conditions, etag: String, modified: Instant | Null): Outcome =
    val seconds = if modified == null then Long.MaxValue else modified.nn.getEpochSecond
    if asked.ifMatch.nonEmpty then
      if !matches(asked.ifMatch, etag, weak = false) then return Outcome.Failed
    else if asked.ifUnmodifiedSince != null then
      HttpDate.parseOrNull(asked.ifUnmodifiedSince.nn) match
        case since: Instant if seconds > since.getEpochSecond => return Outcome.Failed
        case _ => () // a date that can't be read is ignored (§13.1.4)
    if asked.ifNoneMatch.nonEmpty then
      if matches(asked.ifNoneMatch, etag, weak = true) then Outcome.NotModified else Outcome.Proceed
    else if asked.ifModifiedSince != null then
      HttpDate.parseOrNull(asked.ifModifiedSince.nn) match
        case since: Instant if seconds <= since.getEpochSecond => Outcome.NotModified
        case _ => Outcome.Proceed
    else Outcome.Proceed

  /**
   * Whether the entity-tag lists in `values` hold `*` or `etag`: compared strongly (neither weak, same characters) or
   * weakly (same characters, `W/` ignored). A list that can't be read matches nothing.
   */
  def matches(values: List[String], etag: String, weak: Boolean): Boolean =
    values.exists { value =>
      var i = 0
      var found = false
      var ok = true
      while ok && !found && i < value.length do
        val c = value.charAt(i)
        if c == ' ' || c == '\t' || c == ',' then i += 1
        else if c == '*' then
          found = true
        else
          val isWeak = value.startsWith("W/", i)
          val open = if isWeak then i + 2 else i
          val close = if open < value.length && value.charAt(open) == '"' then value.indexOf('"', open + 1) else -1
          if close < 0 then ok = false
          else
            found = (weak || !isWeak) && value.regionMatches(open, etag, 0, etag.length) &&
              close + 1 - open == etag.length
            i = close + 1
      found
    }

/**
 * What a static service reads of a request beside its path: whether the path ends with `/`, the conditional headers
 * (each header's lines kept apart; null for a date not sent) and `Accept-Encoding`.
 */
private[server] final case class Conditions(
    slashed: Boolean,
    ifMatch: List[String],
    ifNoneMatch: List[String],
    ifModifiedSince: String | Null,
    ifUnmodifiedSince: String | Null,
    acceptEncoding: List[String]
)
