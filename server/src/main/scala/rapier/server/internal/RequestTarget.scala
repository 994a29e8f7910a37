package rapier.server.internal

import rapier.model.PercentEncoding

/** Where the path of a request target lies, and how to split it. */
private[server] object RequestTarget:
  /**
   * The index where the path starts: 0 for origin-form (`/a?b`), after the authority for absolute-form
   * (`http://host/a?b`); -1 for other forms (`*`, authority-form), which no endpoint serves.
   */
  def pathStart(target: String): Int =
    if target.length > 0 && target.charAt(0) == '/' then 0
    else
      val scheme = target.indexOf("://")
      if scheme <= 0 || !target.regionMatches(true, 0, "http", 0, 4) then -1
      else
        var i = scheme + 3
        while i < target.length && target.charAt(i) != '/' && target.charAt(i) != '?' && target.charAt(i) != '#' do
          i += 1
        i

  /** The index where the path ends: at `?`, `#` or the end. */
  def pathEnd(target: String, from: Int): Int =
    var i = from
    while i < target.length do
      val c = target.charAt(i)
      if c == '?' || c == '#' then return i
      i += 1
    i

  /**
   * Whether a decoded path segment is one a handler may see: not `.` or `..` (whatever their encoding), and without
   * `/` (encoded as `%2F`), `\` or control characters (encoded NUL, CR, LF, …). Such segments serve path traversal
   * and header or log injection, and no endpoint needs them. With `encodedSlash`, the segment may hold slashes, as a
   * relative path of its own: none of its parts is `.` or `..`, and it does not start with `/`.
   */
  def isSafeSegment(s: String, encodedSlash: Boolean = false): Boolean =
    var partStart = 0
    var i = 0
    while i <= s.length do
      val c = if i < s.length then s.charAt(i) else '/'
      if c == '/' then
        if isDotPart(s, partStart, i) || (i < s.length && (!encodedSlash || i == 0)) then return false
        partStart = i + 1
      else if c < 0x20 || c == 0x7f || c == '\\' then return false
      i += 1
    true

  private def isDotPart(s: String, from: Int, to: Int): Boolean =
    (to - from == 1 && s.charAt(from) == '.') ||
      (to - from == 2 && s.charAt(from) == '.' && s.charAt(from + 1) == '.')

  /**
   * The `/`-separated segments of `target[from, to)`, each percent-decoded; null when one is invalid or unsafe, or
   * empty but for the last (`a//b`, whose empty segment would make `b` absolute once joined). `from` is the first
   * character of the first segment; an empty range has no segments.
   */
  def segmentsOrNull(target: String, from: Int, to: Int): List[String] | Null =
    if from >= to then Nil
    else
      val result = List.newBuilder[String]
      var i = from
      var ok = true
      while ok && i <= to do
        var end = target.indexOf('/', i)
        if end < 0 || end > to then end = to
        PercentEncoding.decodeOrNull(target, i, end, plusIsSpace = false) match
          case s: String if isSafeSegment(s) && (s.nonEmpty || end == to) => result += s
          case _ => ok = false
        i = end + 1
      if ok then result.result() else null
