package rapier.model

/** Character classes of HTTP syntax (RFC 9110 §5.6.2), shared by methods, header names and cookies. */
object Tokens:
  /**
   * ASCII letters and digits, spelled out: a character range (`'a' to 'z'`) would load Scala's numeric ranges, and
   * with them some thirty classes of `scala.math`, at every server's start.
   */
  private[model] val alphanumeric: String = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

  /** A table of the ASCII characters in `chars`. */
  private[model] def asciiTable(chars: String): Array[Boolean] =
    val table = new Array[Boolean](128)
    chars.foreach(c => table(c) = true)
    table

  private val tchar: Array[Boolean] = asciiTable(alphanumeric + "!#$%&'*+-.^_`|~")

  /** Whether `c` may appear in a token. */
  def isTokenChar(c: Char): Boolean = c < 128 && tchar(c)

  /** Whether `s` is a non-empty token (RFC 9110 §5.6.2). A plain loop: backends check each request head with it. */
  def isToken(s: String): Boolean =
    var i = 0
    while i < s.length && isTokenChar(s.charAt(i)) do i += 1
    s.nonEmpty && i == s.length

  /** Whether `s` may be a header field value: visible ASCII, obs-text, spaces and tabs, and no CR, LF or NUL. */
  def isFieldValue(s: String): Boolean =
    var i = 0
    while i < s.length do
      val c = s.charAt(i)
      if (c < 0x20 && c != '\t') || c == 0x7f || c > 0xff then return false
      i += 1
    true

  /** `s` with control characters escaped, safe to put into a log line or an error message. */
  def printable(s: String): String =
    if s.forall(c => c >= 0x20 && c != 0x7f) then s
    else
      val b = new StringBuilder(s.length + 8)
      s.foreach { c =>
        if c >= 0x20 && c != 0x7f then b.append(c)
        else b.append("\\u%04x".format(c.toInt))
      }
      b.toString
