package rapier.model

/**
 * The parameters after a header value's first `;` (RFC 9110 §5.6.6): `text/plain; charset=UTF-8`, `form-data;
 * name="field"; filename="a;b.txt"`. Each is `name=value`, the value a token or a quoted string, whose quotes and
 * backslash escapes are removed, so that a `;` or a `name=` inside quotes is part of a value, never a parameter of its
 * own. Names compare without case. Read leniently, as the rest of a server reads headers: whitespace around `=` and
 * empty parameters are skipped, a parameter without `=` has an empty value, an unterminated quote runs to the end.
 */
object HeaderParameters:
  /** Every parameter of `value`, in order, names in lower case. */
  def all(value: String): List[(String, String)] =
    val params = List.newBuilder[(String, String)]
    val cursor = Cursor(value)
    while cursor.next() do params += cursor.name.toLowerCase(java.util.Locale.ROOT) -> cursor.value
    params.result()

  /**
   * The value of the first parameter called `name` (in any case), or null when `value` has none. Allocates nothing
   * for the parameters passed over: a text body's `Content-Type` is read with it on every request.
   */
  def find(value: String, name: String): String | Null =
    val cursor = Cursor(value)
    while cursor.next() do if cursor.isNamed(name) then return cursor.value
    null

  /** Walks the parameters one at a time, keeping where the current one's name and value are. */
  private final class Cursor(s: String):
    private var at = s.indexOf(';') match
      case -1 => s.length
      case i => i
    private var nameStart = 0
    private var nameEnd = 0
    private var valueStart = 0
    private var valueEnd = 0
    private var quoted = false

    /** Moves to the next parameter; false when there is none. */
    def next(): Boolean =
      while at < s.length && (s.charAt(at) == ';' || isSpace(s.charAt(at))) do at += 1
      if at >= s.length then false
      else
        nameStart = at
        while at < s.length && s.charAt(at) != '=' && s.charAt(at) != ';' do at += 1
        nameEnd = trimmedEnd(nameStart, at)
        quoted = false
        if at < s.length && s.charAt(at) == '=' then
          at += 1
          while at < s.length && isSpace(s.charAt(at)) do at += 1
          if at < s.length && s.charAt(at) == '"' then readQuoted() else readToken()
        else
          valueStart = at
          valueEnd = at
        true

    private def readQuoted(): Unit =
      quoted = true
      at += 1
      valueStart = at
      while at < s.length && s.charAt(at) != '"' do at += (if s.charAt(at) == '\\' then 2 else 1)
      valueEnd = math.min(at, s.length)
      while at < s.length && s.charAt(at) != ';' do at += 1

    private def readToken(): Unit =
      valueStart = at
      while at < s.length && s.charAt(at) != ';' do at += 1
      valueEnd = trimmedEnd(valueStart, at)

    def isNamed(name: String): Boolean =
      nameEnd - nameStart == name.length && s.regionMatches(true, nameStart, name, 0, name.length)

    def name: String = s.substring(nameStart, nameEnd)

    def value: String =
      val escape = if quoted then s.indexOf('\\', valueStart) else -1
      if escape < 0 || escape >= valueEnd then s.substring(valueStart, valueEnd)
      else
        val b = new java.lang.StringBuilder(valueEnd - valueStart)
        var i = valueStart
        while i < valueEnd do
          if s.charAt(i) == '\\' && i + 1 < valueEnd then i += 1
          b.append(s.charAt(i))
          i += 1
        b.toString

    private def trimmedEnd(start: Int, end: Int): Int =
      var e = end
      while e > start && isSpace(s.charAt(e - 1)) do e -= 1
      e

  private def isSpace(c: Char): Boolean = c == ' ' || c == '\t'
