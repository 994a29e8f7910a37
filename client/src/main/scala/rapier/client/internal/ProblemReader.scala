package rapier.client.internal

import rapier.model.{Header, StatusCode}
import rapier.server.Problem

import scala.collection.mutable

/**
 * Reads an `application/problem+json` body into a [[Problem]]: the members RFC 9457 defines and the `errors` and
 * `requestId` a Rapier server adds. A body that is not such an object gives a problem of the status alone.
 */
private[client] object ProblemReader:
  def read(status: Int, body: String, headers: List[Header]): Problem =
    val fields = JsonValues.parseOrNull(body) match
      case m: Map[?, ?] => m.asInstanceOf[Map[String, Any]]
      case _ => Map.empty[String, Any]
    def text(name: String): Option[String] = fields.get(name).collect { case s: String => s }
    val errors = fields.get("errors").toList.flatMap {
      case items: List[?] =>
        items.collect { case e: Map[?, ?] =>
          val m = e.asInstanceOf[Map[String, Any]]
          def field(n: String) = m.get(n).collect { case s: String => s }.getOrElse("")
          Problem.Error(field("location"), field("rule"), field("expected"), field("message"))
        }
      case _ => Nil
    }
    Problem(
      StatusCode(status),
      text("detail").getOrElse(""),
      errors,
      headers,
      text("requestId"),
      text("title"),
      text("type").getOrElse("about:blank")
    )

/**
 * JSON as Scala values: objects as `Map[String, Any]`, arrays as `List[Any]`, strings, numbers as `BigDecimal`,
 * booleans and `null`. Enough for problem bodies, which are small; nesting is bounded.
 */
private[client] object JsonValues:
  private val MaxDepth = 64

  /** The value, or null for text that is not JSON. */
  def parseOrNull(s: String): Any =
    val p = Parser(s)
    try
      val v = p.value(0)
      p.skipSpace()
      if p.at == s.length then v else null
    catch case _: Parser.NotJson => null

  private final class Parser(s: String):
    var at = 0

    def skipSpace(): Unit = while at < s.length && " \t\r\n".indexOf(s.charAt(at)) >= 0 do at += 1

    private def fail(): Nothing = throw Parser.NotJson()

    private def expect(c: Char): Unit =
      skipSpace()
      if at < s.length && s.charAt(at) == c then at += 1 else fail()

    private def peek: Char =
      skipSpace()
      if at < s.length then s.charAt(at) else fail()

    def value(depth: Int): Any =
      if depth > MaxDepth then fail()
      peek match
        case '{' =>
          at += 1
          val fields = mutable.LinkedHashMap.empty[String, Any]
          if peek == '}' then at += 1
          else
            var more = true
            while more do
              if peek != '"' then fail()
              val name = string()
              expect(':')
              fields(name) = value(depth + 1)
              peek match
                case ',' => at += 1
                case '}' => at += 1; more = false
                case _ => fail()
          fields.toMap
        case '[' =>
          at += 1
          val items = List.newBuilder[Any]
          if peek == ']' then at += 1
          else
            var more = true
            while more do
              items += value(depth + 1)
              peek match
                case ',' => at += 1
                case ']' => at += 1; more = false
                case _ => fail()
          items.result()
        case '"' => string()
        case 't' => word("true", true)
        case 'f' => word("false", false)
        case 'n' => word("null", null)
        case _ => number()

    private def word(w: String, v: Any): Any =
      if s.startsWith(w, at) then
        at += w.length
        v
      else fail()

    private def number(): BigDecimal =
      val from = at
      while at < s.length && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0 do at += 1
      try BigDecimal(s.substring(from, at))
      catch case _: NumberFormatException => fail()

    private def string(): String =
      at += 1
      val b = java.lang.StringBuilder()
      while
        if at >= s.length then fail()
        val c = s.charAt(at)
        at += 1
        c match
          case '"' => false
          case '\\' =>
            if at >= s.length then fail()
            val e = s.charAt(at)
            at += 1
            e match
              case '"' | '\\' | '/' => b.append(e)
              case 'b' => b.append('\b')
              case 'f' => b.append('\f')
              case 'n' => b.append('\n')
              case 'r' => b.append('\r')
              case 't' => b.append('\t')
              case 'u' =>
                if at + 4 > s.length then fail()
                try b.append(Integer.parseInt(s.substring(at, at + 4), 16).toChar)
                catch case _: NumberFormatException => fail()
                at += 4
              case _ => fail()
            true
          case c if c < ' ' => fail()
          case c =>
            b.append(c)
            true
      do ()
      b.toString

  private object Parser:
    final class NotJson extends RuntimeException(null, null, false, false)
